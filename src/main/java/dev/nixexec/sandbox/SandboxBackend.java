package dev.nixexec.sandbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Instance;
import java.util.Locale;

/** Chooses the sandbox for this host: Seatbelt on macOS, bubblewrap everywhere else. */
@ApplicationScoped
public class SandboxBackend {

    @Produces
    @ApplicationScoped
    Sandbox sandbox(Instance<BwrapSandbox> bwrap, Instance<SeatbeltSandbox> seatbelt) {
        boolean mac = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("mac");
        return mac ? seatbelt.get() : bwrap.get();
    }
}
