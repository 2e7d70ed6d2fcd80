package dev.nixexec.sandbox;

/** An IPv4 range in CIDR notation ({@code 10.0.0.0/8}), as the network settings and {@code ip route} write it. */
record Ipv4Range(int network, int prefixLength) {

    Ipv4Range {
        if (prefixLength < 0 || prefixLength > 32) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " is not 0 to 32");
        }
        if ((network & ~mask(prefixLength)) != 0) {
            throw new IllegalArgumentException("has bits set past its prefix length");
        }
    }

    /** Parses {@code a.b.c.d/n}, or {@code a.b.c.d} as a /32; says what is wrong in one line. */
    static Ipv4Range parse(String text) {
        String[] parts = text.strip().split("/", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 range such as 10.1.0.0/16");
        }
        int prefix;
        try {
            prefix = parts.length == 2 ? Integer.parseInt(parts[1]) : 32;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 range such as 10.1.0.0/16");
        }
        int address = address(parts[0], text);
        try {
            return new Ipv4Range(address, prefix);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "' " + e.getMessage());
        }
    }

    /** One address, as a /32. */
    static Ipv4Range host(byte[] address) {
        return new Ipv4Range(((address[0] & 0xff) << 24) | ((address[1] & 0xff) << 16) | ((address[2] & 0xff) << 8)
                | (address[3] & 0xff), 32);
    }

    private static int address(String dotted, String whole) {
        String[] octets = dotted.split("\\.", -1);
        if (octets.length != 4) {
            throw new IllegalArgumentException("'" + whole + "' is not an IPv4 range such as 10.1.0.0/16");
        }
        int address = 0;
        for (String octet : octets) {
            if (octet.isEmpty() || octet.length() > 3 || !octet.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(octet) > 255) {
                throw new IllegalArgumentException("'" + whole + "' is not an IPv4 range such as 10.1.0.0/16");
            }
            address = (address << 8) | Integer.parseInt(octet);
        }
        return address;
    }

    private static int mask(int prefixLength) {
        return prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
    }

    /** Whether every address of {@code other} is in this range. */
    boolean covers(Ipv4Range other) {
        return other.prefixLength >= prefixLength && (other.network & mask(prefixLength)) == network;
    }

    @Override
    public String toString() {
        return (network >>> 24) + "." + ((network >>> 16) & 0xff) + "." + ((network >>> 8) & 0xff) + "."
                + (network & 0xff) + "/" + prefixLength;
    }
}
