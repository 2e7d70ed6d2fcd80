package dev.nixexec.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What is wrong with a REST body before it is read, answered with a problem document like every
 * other REST error:
 * <ul>
 * <li>announced larger than {@code quarkus.http.limits.max-body-size}: Quarkus's own check (route
 * order -2, before JAX-RS) would answer a bare 413. Like it, this closes the connection rather
 * than read the body.</li>
 * <li>a POST body without a Content-Type: JAX-RS would guess it is JSON. Every REST POST that takes
 * a body takes JSON, so the caller is told to say so.</li>
 * </ul>
 */
@ApplicationScoped
public class BodyChecks {

    private final long maxBytes;
    private final ObjectMapper json;

    BodyChecks(@ConfigProperty(name = "quarkus.http.limits.max-body-size", defaultValue = "10240K") MemorySize max,
            ObjectMapper json) {
        this.maxBytes = max.asLongValue();
        this.json = json;
    }

    void install(@Observes Router router) {
        router.route("/v1/*").order(-3).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        String length = ctx.request().getHeader("Content-Length");
        long announced;
        try {
            announced = length == null ? -1 : Long.parseLong(length.strip());
        } catch (NumberFormatException e) {
            announced = -1; // the HTTP codec refuses a malformed length itself
        }
        if (announced > maxBytes) {
            refuse(ctx, 413, "Payload Too Large",
                    "the request body is " + announced + " bytes; this service accepts at most " + maxBytes);
            return;
        }
        boolean hasBody = announced > 0 || ctx.request().getHeader("Transfer-Encoding") != null;
        String type = ctx.request().getHeader("Content-Type");
        if (ctx.request().method() == HttpMethod.POST && hasBody && (type == null || type.isBlank())) {
            refuse(ctx, 415, "Unsupported Media Type", "Content-Type: application/json is required (the request has none)");
            return;
        }
        ctx.next();
    }

    private void refuse(RoutingContext ctx, int status, String title, String detail) {
        String body;
        try {
            body = json.writeValueAsString(Problems.body(status, title, detail, null));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        ctx.response().setStatusCode(status).putHeader("Content-Type", Problems.MEDIA_TYPE)
                .putHeader("Connection", "close").end(body);
    }
}
