package dev.nixexec.ui;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * Browser hardening on every {@code /ui} response: scripts and styles only from this service (so
 * even an escaping mistake cannot run injected script), no framing, no caching of pages that show
 * job output, no referrer (job ids in URLs) leaving the site.
 */
public class UiHeaders {

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    @ServerResponseFilter
    public void harden(ContainerRequestContext request, ContainerResponseContext response) {
        if (!request.getUriInfo().getPath().startsWith("/ui")) {
            return;
        }
        var headers = response.getHeaders();
        // a job's artifact comes with its own, stricter policy (a sandbox)
        if (!headers.containsKey("Content-Security-Policy")) {
            headers.putSingle("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        }
        headers.putSingle("X-Content-Type-Options", "nosniff");
        headers.putSingle("X-Frame-Options", "DENY");
        // not no-referrer: under it Chromium sends "Origin: null" on same-site form posts
        headers.putSingle("Referrer-Policy", "same-origin");
        if (!headers.containsKey("Cache-Control")) {
            headers.putSingle("Cache-Control", "no-store");
        }
    }
}
