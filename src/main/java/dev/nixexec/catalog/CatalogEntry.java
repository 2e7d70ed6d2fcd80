package dev.nixexec.catalog;

import com.fasterxml.jackson.annotation.JsonInclude;

/** One agent or tool of the catalog: what to call it, its nixpkgs attribute, and what it is. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CatalogEntry(String name, String attribute, String description, String category) {
}
