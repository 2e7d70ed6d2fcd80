package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The tenant label names the first tenants a node counts, then says "other", and never changes a tenant's label. */
class TenantLabelsTest {

    @Test
    void theFirstTenantsAreNamedTheRestAreOtherAndNamesStay() {
        List<UUID> lookedUp = new ArrayList<>();
        TenantLabels labels = new TenantLabels(2, id -> {
            lookedUp.add(id);
            return Optional.of("t-" + id.toString().substring(0, 4));
        });
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        UUID c = UUID.randomUUID();
        assertEquals("t-" + a.toString().substring(0, 4), labels.of(a));
        assertEquals("t-" + b.toString().substring(0, 4), labels.of(b));
        assertEquals(TenantLabels.OTHER, labels.of(c));
        assertEquals("t-" + a.toString().substring(0, 4), labels.of(a), "a named tenant keeps its label");
        assertEquals(TenantLabels.OTHER, labels.of(c));
        assertEquals(List.of(a, b), lookedUp, "a name is looked up once, and not at all once the labels are full");
    }

    @Test
    void aTenantWithoutANameIsOtherAndTakesNoPlace() {
        UUID gone = UUID.randomUUID();
        UUID named = UUID.randomUUID();
        TenantLabels labels = new TenantLabels(1, id -> id.equals(gone) ? Optional.empty() : Optional.of("named"));
        assertEquals(TenantLabels.OTHER, labels.of(gone));
        assertEquals("named", labels.of(named));
    }
}
