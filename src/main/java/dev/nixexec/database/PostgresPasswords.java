package dev.nixexec.database;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The embedded database's passwords, one per role, in {@code postgres.pgpass} next to the data
 * directory: 0600 and in libpq's password-file format, so {@code PGPASSFILE=... psql} works for
 * maintenance. Read each time they are asked for: several class loaders of one JVM share the file.
 */
final class PostgresPasswords {

    private PostgresPasswords() {
    }

    static Path file(Path dataDir) {
        return dataDir.resolveSibling("postgres.pgpass");
    }

    /** New random passwords for the superuser and the owner. */
    static Map<String, String> generate() {
        Map<String, String> passwords = new LinkedHashMap<>();
        SecureRandom random = new SecureRandom();
        for (String role : List.of(EmbeddedPostgresServer.SUPERUSER, EmbeddedPostgresServer.OWNER)) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            passwords.put(role, Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
        }
        return passwords;
    }

    /** Replaces the file at once, with a comment on how to log in over {@code socketDir}. */
    static void save(Path file, Map<String, String> passwords, Path socketDir) throws IOException {
        StringBuilder text = new StringBuilder("""
                # Passwords of the embedded PostgreSQL of nix-exec (libpq password file). Maintenance, as the service's user:
                #   PGPASSFILE=%s psql -h %s -U %s %s
                """.formatted(file, socketDir, EmbeddedPostgresServer.OWNER, EmbeddedPostgresServer.DATABASE));
        passwords.forEach((role, password) -> text.append("*:*:*:").append(role).append(':').append(password).append('\n'));
        Path tmp = PrivateFiles.newFile(file.resolveSibling(".postgres.pgpass-" + UUID.randomUUID()), text);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Every role's password in the file, which must be the service's own (it is made 0600 if it was not). */
    static Map<String, String> read(Path file) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile() || !attributes.owner().getName().equals(System.getProperty("user.name"))) {
            throw new IOException(file + " must be a file of " + System.getProperty("user.name"));
        }
        if (!attributes.permissions().equals(PrivateFiles.PRIVATE_FILE)) {
            Files.setPosixFilePermissions(file, PrivateFiles.PRIVATE_FILE);
        }
        Map<String, String> passwords = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] fields = line.split(":", 5);
            if (!line.startsWith("#") && fields.length == 5) {
                passwords.put(fields[3], fields[4]);
            }
        }
        return passwords;
    }

    /** The password of a role of the database in {@code dataDir}. */
    static String of(Path dataDir, String role) {
        try {
            String password = read(file(dataDir)).get(role);
            if (password == null) {
                throw new IOException("no password for " + role + " in " + file(dataDir));
            }
            return password;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
