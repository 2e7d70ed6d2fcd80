package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.config.HostMount;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.testing.FreshStateDirs;
import dev.nixexec.testing.ServiceJson;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V70 folds a job's request columns into its {@code request} document: a job stored before it
 * reads back as the same request, to run, rerun or show, as one stored after it.
 */
class JobRequestMigrationTest {

    @TempDir
    Path dir;

    @Test
    void aJobStoredBeforeTheDocumentReadsBackAsTheSameRequest() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("data"))
                .setOverrideWorkingDirectory(FreshStateDirs.libraryBinaries().toFile()).start()) {
            DataSource db = postgres.getPostgresDatabase();
            flyway(db).target("69").load().migrate();
            UUID tenant = UUID.randomUUID();
            UUID full = UUID.randomUUID();
            UUID plain = UUID.randomUUID();
            try (Connection c = db.getConnection()) {
                update(c, "INSERT INTO tenants (id, name) VALUES ('" + tenant + "', 't')");
                update(c, "INSERT INTO jobs (id, tenant_id, status, language, code, packages, env, stdin, timeout_ms,"
                        + " network, host_workspace, host_mounts, metadata, limits, args, encoding) VALUES ('" + full
                        + "', '" + tenant + "', 'succeeded', 'python', 'print(1)', '[\"jq\"]', '{\"A\": \"1\"}', 'in',"
                        + " 5500, true, '/srv/work', '[{\"path\": \"file:///srv/data\", \"writable\": true}]',"
                        + " '{\"run\": 7}', '{\"memory\": 67108864, \"pids\": 32}', '[\"a\", \"b\"]', 'base64')");
                update(c, "INSERT INTO jobs (id, tenant_id, status, language, code, packages, env, stdin, timeout_ms,"
                        + " network) VALUES ('" + plain + "', '" + tenant + "', 'queued', 'bash', 'true', '[]', '{}', '',"
                        + " 30000, false)");
            }
            flyway(db).load().migrate();

            assertEquals(new Submission(new ExecutionRequest("python", "print(1)", List.of("jq"), Map.of("A", "1"), "in",
                    Optional.of(Duration.ofMillis(5500)), true, new RequestedLimits(64L << 20, 32, null, null),
                    List.of("a", "b")), OutputEncoding.BASE64, Map.of("run", 7), Optional.of(Path.of("/srv/work")),
                    List.of(new HostMount(Path.of("/srv/data"), true)), null, null, null, null), read(db, full));
            assertEquals(Submission.of(ExecutionRequest.of("bash", "true").withTimeout(Duration.ofSeconds(30))),
                    read(db, plain));
        }
    }

    private static Submission read(DataSource db, UUID id) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement("SELECT * FROM jobs WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return JobRows.job(rs, ServiceJson.mapper()).request();
            }
        }
    }

    private static org.flywaydb.core.api.configuration.FluentConfiguration flyway(DataSource db) {
        return Flyway.configure().dataSource(db).locations("classpath:db/migration");
    }

    private static void update(Connection c, String sql) throws Exception {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            statement.executeUpdate();
        }
    }
}
