package dev.nixexec.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.Converters;
import java.util.List;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * In local mode ({@code nixexec.auth.enabled=false}, no keys) the service listens on 127.0.0.1
 * unless an address is configured: Quarkus' own default for {@code quarkus.http.host} and
 * {@code quarkus.management.host} is 0.0.0.0 in production, which would offer a keyless service
 * to the network. The ordinal, 200, is below application.properties (250), so any configured
 * address wins; api/LocalModePeerCheck then refuses to start on a non-loopback one.
 */
public class LocalModeListenSource implements ConfigSourceFactory {

    static final int ORDINAL = 200;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        boolean authEnabled = NixExecYamlSource.value(context, "nixexec.auth.enabled")
                .map(v -> Converters.getImplicitConverter(Boolean.class).convert(v))
                .orElse(true);
        return authEnabled ? List.of() : List.of(new Loopback());
    }

    static final class Loopback implements ConfigSource {
        private static final Set<String> NAMES = Set.of("quarkus.http.host", "quarkus.management.host");

        @Override
        public Set<String> getPropertyNames() {
            return NAMES;
        }

        @Override
        public String getValue(String name) {
            // Not while the build reads: it would bake 127.0.0.1 into the application whatever mode it runs in.
            return NAMES.contains(name) && !BuildTimeReads.now() ? "127.0.0.1" : null;
        }

        @Override
        public int getOrdinal() {
            return ORDINAL;
        }

        @Override
        public String getName() {
            return "nix-exec local mode: loopback only";
        }
    }
}
