package dev.nixexec.tenant;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * A tenant policy's {@code webhook_hosts}: host names, IP literals, each alone (any port) or as
 * {@code host:port} (IPv6 as {@code [::1]:8080}). Only an entry that is an IP literal lets a
 * callback reach an internal address (loopback, private, link-local: webhook/CallbackAddresses).
 */
public record WebhookHosts(List<String> entries) {

    private static final Pattern HOST_NAME = Pattern.compile("(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\\.?");
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    public WebhookHosts {
        entries = entries == null ? List.of() : List.copyOf(entries);
    }

    /** Why an entry is neither a host nor {@code host:port}, if it is not. */
    public static Optional<String> problem(String entry) {
        if (entry == null) {
            return Optional.of("an entry is null");
        }
        return parse(entry).isPresent() ? Optional.empty()
                : Optional.of("'" + entry + "' is not a host name, IP literal or host:port");
    }

    /** Whether a URL's host and port are listed. */
    public boolean lists(String host, int port) {
        return matching(host, port).isPresent();
    }

    /** Whether they are listed by an entry that is an IP literal, the only kind that reaches internal addresses. */
    public boolean listsIpLiteral(String host, int port) {
        return matching(host, port).filter(e -> ipLiteral(e.host()).isPresent()).isPresent();
    }

    /** Whether {@code entry} names its host by an IP literal, the kind of entry that reaches internal addresses. */
    public static boolean namesIpLiteral(String entry) {
        return parse(entry).filter(e -> ipLiteral(e.host()).isPresent()).isPresent();
    }

    /** Whether this list allows every address {@code entry} allows: its host, with its port or with any port. */
    public boolean covers(String entry) {
        Optional<Entry> wanted = parse(entry);
        return wanted.isPresent() && entries.stream().flatMap(e -> parse(e).stream()).anyMatch(e ->
                e.host().equals(wanted.get().host()) && (e.port().isEmpty() || e.port().equals(wanted.get().port())));
    }

    private Optional<Entry> matching(String host, int port) {
        String wanted = normalized(host);
        return entries.stream().flatMap(e -> parse(e).stream())
                .filter(e -> e.host().equals(wanted) && (e.port().isEmpty() || e.port().getAsInt() == port))
                .findFirst();
    }

    private record Entry(String host, OptionalInt port) {
    }

    private static Optional<Entry> parse(String entry) {
        String text = entry.strip();
        String host;
        String port = null;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || (close + 1 < text.length() && text.charAt(close + 1) != ':')) {
                return Optional.empty();
            }
            host = text.substring(0, close + 1);
            port = close + 1 < text.length() ? text.substring(close + 2) : null;
        } else if (text.indexOf(':') != text.lastIndexOf(':')) {
            host = text; // an IPv6 literal without brackets takes no port
        } else {
            int colon = text.indexOf(':');
            host = colon < 0 ? text : text.substring(0, colon);
            port = colon < 0 ? null : text.substring(colon + 1);
        }
        boolean literal = ipLiteral(host).isPresent();
        if (!literal && (host.contains(":") || host.startsWith("[") || !HOST_NAME.matcher(host).matches())) {
            return Optional.empty();
        }
        if (port == null) {
            return Optional.of(new Entry(normalized(host), OptionalInt.empty()));
        }
        if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            return Optional.empty();
        }
        return Optional.of(new Entry(normalized(host), OptionalInt.of(Integer.parseInt(port))));
    }

    /** An IP literal in its one canonical spelling; a host name in lower case without a final dot. */
    private static String normalized(String host) {
        return ipLiteral(host).map(InetAddress::getHostAddress)
                .orElseGet(() -> host.toLowerCase(Locale.ROOT).replaceAll("\\.$", ""));
    }

    /**
     * The address a host spelled as an IP literal stands for ({@code 127.0.0.1}, {@code ::1},
     * {@code [::1]}); empty for a name. Only strict forms count: {@code 127.1} is a name here.
     */
    public static Optional<InetAddress> ipLiteral(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean v4 = IPV4.matcher(bare).matches();
        if (v4 && java.util.Arrays.stream(bare.split("\\.")).anyMatch(octet -> Integer.parseInt(octet) > 255)) {
            return Optional.empty(); // not a literal, and never looked up here
        }
        if (!v4 && !(bare.contains(":") && bare.matches("[0-9A-Fa-f:.]+"))) {
            return Optional.empty();
        }
        try {
            // a literal: no lookup happens
            return Optional.of(InetAddress.getByName(bare));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
