package dev.nixexec.refusal;

/** One problem with one field of a request, worded for the person or agent who sent it. */
public record FieldError(String field, String message) {
}
