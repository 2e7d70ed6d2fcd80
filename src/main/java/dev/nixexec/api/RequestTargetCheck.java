package dev.nixexec.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.UntrustedText;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The request's path and query as the caller wrote them, checked before routing. Vert.x routes
 * on a normalised path: {@code files/a/../b} and {@code files/a/%2e%2e/b} would reach a resource as
 * {@code files/b}, {@code a//d} as {@code a/d}. A path is taken as written or refused, never
 * resolved: a {@code .} or {@code ..} segment, or an empty one inside it, is a 400 (also when it
 * comes from an encoded slash, {@code a%2F..%2Fb}). NUL and lone surrogates in a path segment or a
 * query parameter are a 400 naming it, as in a body ({@link UntrustedText}).
 */
@ApplicationScoped
public class RequestTargetCheck {

    private final ObjectMapper json;

    RequestTargetCheck(ObjectMapper json) {
        this.json = json;
    }

    void install(@Observes Router router) {
        router.route().order(-4).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        Optional<FieldError> problem = pathProblem(ctx.request().path()).or(() -> queryProblem(ctx));
        if (problem.isPresent()) {
            refuse(ctx, problem.get());
            return;
        }
        ctx.next();
    }

    /** Why the raw path cannot be taken as written, if it cannot. */
    private static Optional<FieldError> pathProblem(String raw) {
        if (raw == null) {
            return Optional.empty();
        }
        String[] segments = raw.split("/", -1);
        for (int i = 1; i < segments.length; i++) {
            String decoded = decoded(segments[i]);
            if (decoded == null) {
                continue; // not percent-encoding: routing answers it
            }
            Optional<String> text = UntrustedText.problem(decoded);
            if (text.isPresent()) {
                return Optional.of(new FieldError("path", "a segment of the path " + text.get()));
            }
            String[] parts = decoded.split("/", -1);
            for (int j = 0; j < parts.length; j++) {
                boolean last = i == segments.length - 1 && j == parts.length - 1;
                if (parts[j].equals(".") || parts[j].equals("..") || parts[j].isEmpty() && !last) {
                    return Optional.of(new FieldError("path", "the path has an empty, '.' or '..' segment; "
                            + "paths are taken as written, never resolved"));
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<FieldError> queryProblem(RoutingContext ctx) {
        MultiMap parameters;
        try {
            parameters = ctx.queryParams();
        } catch (IllegalArgumentException undecodable) {
            return Optional.empty(); // the resource's own parameter handling answers it
        }
        for (Map.Entry<String, String> parameter : parameters) {
            Optional<String> inName = UntrustedText.problem(parameter.getKey());
            if (inName.isPresent()) {
                return Optional.of(new FieldError("query", "a parameter name " + inName.get()));
            }
            Optional<String> inValue = UntrustedText.problem(parameter.getValue());
            if (inValue.isPresent()) {
                return Optional.of(new FieldError(parameter.getKey(), "query parameter " + inValue.get()));
            }
        }
        return Optional.empty();
    }

    /** A path segment without its percent-encoding ({@code +} is a plus in a path); null if it has none that reads. */
    private static String decoded(String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private void refuse(RoutingContext ctx, FieldError error) {
        String body;
        try {
            body = json.writeValueAsString(Problems.body(400, "Bad Request", error.field() + ": " + error.message(),
                    List.of(error)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        ctx.response().setStatusCode(400).putHeader("Content-Type", Problems.MEDIA_TYPE).end(body);
    }
}
