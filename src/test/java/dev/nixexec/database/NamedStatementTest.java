package dev.nixexec.database;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A SQL resource's named statements: each block by its name, a {@code {Name}} replaced by that
 * block, whole-line comments left out (a {@code :name} in one is no parameter), quoted text and
 * casts left alone, and a reference to a missing block refused by its name.
 */
@DatabaseTest
class NamedStatementTest {

    @Test
    void blocksAreReadByNameWithTheirFragments(Database database) throws Exception {
        Map<String, NamedStatement> file = NamedStatement.file(NamedStatementTest.class, "named-statements.sql");
        try (Connection connection = database.open()) {
            List<String> row = file.get("Select").with(Map.of("a", "one", "b", "two"))
                    .single(connection, rs -> List.of(rs.getString("a"), rs.getString("b"), rs.getString("quoted"),
                            rs.getString("cast")));
            assertEquals(List.of("one", "two", ":quoted", "7"), row);
        }
    }

    @Test
    void aReferenceToNoBlockIsRefusedAtLoad() {
        IllegalStateException broken = assertThrows(IllegalStateException.class,
                () -> NamedStatement.file(NamedStatementTest.class, "named-statements-broken.sql"));
        assertTrue(broken.getMessage().contains("{Missing}"), broken.getMessage());
    }
}
