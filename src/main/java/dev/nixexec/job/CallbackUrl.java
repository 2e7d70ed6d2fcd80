package dev.nixexec.job;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A job's {@code callback_url}: absolute http or https, a host, no user info or fragment. Where it
 * may point is the tenant policy's {@code webhook_hosts}; what it may reach, webhook/CallbackAddresses.
 */
public record CallbackUrl(URI uri) {

    public static final int MAX_LENGTH = 2048;

    /** The URL, or an {@link IllegalArgumentException} saying what is wrong with it. */
    public static CallbackUrl parse(String text) {
        if (text.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("at most " + MAX_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("must be an http or https URL");
        }
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("must have a host and no user info or fragment");
        }
        return new CallbackUrl(uri);
    }

    public boolean https() {
        return uri.getScheme().equalsIgnoreCase("https");
    }

    /** The host as written, IPv6 without brackets. */
    public String host() {
        String host = uri.getHost();
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    public int port() {
        return uri.getPort() >= 0 ? uri.getPort() : https() ? 443 : 80;
    }

    /** Path and query, as the request line carries them. */
    public String target() {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }
}
