package dev.nixexec.cli;

import picocli.CommandLine;

/**
 * The build's version: Quarkus' packaging writes the project version into the application jar's
 * manifest ({@code Implementation-Version}), which its class loader gives this class's package;
 * reading it costs no service start. Classes not run from that jar (dev mode, tests) have none.
 */
final class Version implements CommandLine.IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = Version.class.getPackage().getImplementationVersion();
        return new String[] {"nix-exec " + (version != null ? version : "(no version: not run from the packaged jar)")};
    }
}
