package dev.nixexec.nix;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The eight languages of nix-exec: how each finds its interpreter and package set in nixpkgs and
 * how the code file is run.
 */
public enum Language {
    PYTHON("python", "python3", "python3Packages", List.of("python3", "withPackages"),
            "main.py", List.of("python3"), "python3Packages.numpy"),
    BASH("bash", "bash", null, null, "main.sh", List.of("bash"), "jq"),
    NODE("node", "nodejs", null, null, "main.js", List.of("node"), "typescript"),
    HASKELL("haskell", "ghc", "haskellPackages", List.of("haskellPackages", "ghcWithPackages"),
            "Main.hs", List.of("runhaskell"), "haskellPackages.text"),
    LUA("lua", "lua5_4", "lua5_4Packages", List.of("lua5_4", "withPackages"),
            "main.lua", List.of("lua"), "lua5_4Packages.luafilesystem"),
    RUBY("ruby", "ruby", "rubyPackages", List.of("ruby", "withPackages"),
            "main.rb", List.of("ruby"), "rubyPackages.nokogiri"),
    PERL("perl", "perl", "perlPackages", List.of("perl", "withPackages"),
            "main.pl", List.of("perl"), "perlPackages.JSON"),
    OCTAVE("octave", "octave", "octavePackages", List.of("octave", "withPackages"),
            "main.m", List.of("octave-cli", "--no-gui", "--quiet", "--norc", "--no-history"), "octavePackages.statistics");

    private final String id;
    private final String interpreter;
    private final String packageSet;
    private final List<String> withPackages;
    private final String fileName;
    private final List<String> command;
    private final String examplePackage;

    Language(String id, String interpreter, String packageSet, List<String> withPackages,
            String fileName, List<String> command, String examplePackage) {
        this.id = id;
        this.interpreter = interpreter;
        this.packageSet = packageSet;
        this.withPackages = withPackages;
        this.fileName = fileName;
        this.command = command;
        this.examplePackage = examplePackage;
    }

    /** The name clients use ({@code "python"}). */
    public String id() {
        return id;
    }

    /** Top-level nixpkgs attribute of the interpreter. */
    public String interpreter() {
        return interpreter;
    }

    /** Attribute of the package set whose members are wired into the interpreter, if any. */
    public Optional<String> packageSet() {
        return Optional.ofNullable(packageSet);
    }

    /** Attribute path of the function taking {@code ps: [...]}, if the language has a set. */
    public Optional<List<String>> withPackages() {
        return Optional.ofNullable(withPackages);
    }

    /** Name of the file the code is written to. */
    public String fileName() {
        return fileName;
    }

    /** Interpreter invocation; the code file's path is appended. */
    public List<String> command() {
        return command;
    }

    public String examplePackage() {
        return examplePackage;
    }

    /** True when the package belongs to this language's set and goes into withPackages. */
    public boolean isSetPackage(PackageName name) {
        return packageSet != null && name.segments().size() > 1 && name.segments().get(0).equals(packageSet);
    }

    public static Optional<Language> byId(String id) {
        if (id == null) {
            return Optional.empty();
        }
        String wanted = id.toLowerCase(Locale.ROOT);
        for (Language language : values()) {
            if (language.id.equals(wanted)) {
                return Optional.of(language);
            }
        }
        return Optional.empty();
    }

    public static List<String> ids() {
        return Arrays.stream(values()).map(Language::id).toList();
    }
}
