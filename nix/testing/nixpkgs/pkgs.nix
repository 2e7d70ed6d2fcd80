# The fixture's package set. Every interpreter is the Debian host binary,
# copied into the store with its shared libraries and re-pointed (patchelf)
# at a store copy of glibc, so that it runs when only its closure is visible
# (e.g. inside bubblewrap with no /usr, /lib or /etc).
{ system }:

let
  hostPath = "/usr/bin:/bin";

  # Minimal runCommand on top of builtins.derivation (there is no stdenv).
  # Every package gets a meta.description, as nixpkgs' do, for the package
  # search index; it lives outside the derivation, so no hash changes.
  runCommand = name: env: script: builtins.derivation ({
    inherit name system;
    builder = "/bin/bash";
    args = [ "-eu" "-c" script ];
    PATH = hostPath;
    # Host copies are cheap to make and not worth substituting/uploading.
    preferLocalBuild = true;
    allowSubstitutes = false;
  } // builtins.removeAttrs env [ "meta" ]) // {
    meta = { description = "${name} (offline test fixture)"; } // (env.meta or { });
  };

  # Host binaries plus data dirs, made self-contained by fixup.sh.
  hostPackage = name: script: runCommand name { inherit glibc; fixup = ./fixup.sh; } ''
    mkdir -p $out/bin $out/lib
    ${script}
    # Drop symlinks that escape the package (e.g. Debian's links into /etc
    # or /usr/share): they would dangle in the sandbox and leak host paths.
    find $out -type l -lname '/*' -delete
    find $out -xtype l -delete
    source $fixup
    fixup_host_elfs
  '';

  # Small text files written straight from Nix strings.
  writeFile = name: path: text: executable: runCommand name {
    inherit text path;
    passAsFile = [ "text" ];
  } ''
    mkdir -p "$(dirname "$out/$path")"
    cp "$textPath" "$out/$path"
    ${if executable then ''chmod +x "$out/$path"'' else ""}
  '';

  # `exec` wrapper scripts; their shebang must point into the store.
  wrapper = exports: target: ''
    #!${busybox}/bin/sh
    ${exports}
    exec ${target} "$@"
  '';

  concatMapSep = sep: f: xs: builtins.concatStringsSep sep (map f xs);

  # Derivation holding `exec` wrapper scripts bin/<name> -> target, with
  # `exports` (shell lines) run first. `refs` keeps extra paths in the closure.
  mkWrapper = { name, bins, exports, refs ? [ ] }: runCommand name { inherit refs; } (''
    mkdir -p $out/bin
  '' + concatMapSep "\n" (b: ''
    cat > $out/bin/${b.name} <<'NIXEXEC_EOF'
    ${wrapper exports b.target}
    NIXEXEC_EOF
    chmod +x $out/bin/${b.name}
  '') bins);

  # nixpkgs-style `withPackages`: f gets the package set, returns a list.
  # `exports` turns the chosen packages into environment settings.
  mkWithPackages = { interp, pkgSet, bins, exports }: f:
    let chosen = f pkgSet; in mkWrapper {
      name = "${interp.name}-with-packages";
      bins = map (b: { name = b; target = "${interp}/bin/${b}"; }) bins;
      exports = exports chosen;
      refs = chosen;
    };

  # ---------------------------------------------------------------- base

  # One store copy of the host glibc that every patched ELF file uses.
  glibc = runCommand "glibc-host" { } ''
    mkdir -p $out/lib
    for l in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 \
             libdl.so.2 librt.so.1 libresolv.so.2 libutil.so.1 libanl.so.1 \
             libnss_files.so.2 libnss_dns.so.2; do
      cp -L /lib/x86_64-linux-gnu/$l $out/lib/$l
    done
  '';

  # Static busybox: the shell for wrapper scripts, and our "coreutils".
  busybox = runCommand "busybox-host" { } ''
    mkdir -p $out/bin
    cp -L /bin/busybox $out/bin/busybox
    for a in $($out/bin/busybox --list); do
      [ "$a" = busybox ] || ln -s busybox $out/bin/$a
    done
  '';

  # Busybox applets that stand in for GNU coreutils (plus sh, which
  # nixpkgs' bash provides, so the env has a /bin/sh-like program either way).
  coreutils = runCommand "coreutils-busybox" { } ''
    mkdir -p $out/bin
    ln -s ${busybox}/bin/busybox $out/bin/busybox
    for a in basename cat chmod chown cp cut date dd df dirname du echo env \
             expr false head id install ln ls md5sum mkdir mktemp mv nproc \
             printf pwd readlink realpath rm rmdir seq sh sha256sum sleep sort \
             stat tail tee test timeout touch tr true uname uniq wc whoami yes \
             [ grep sed; do
      ln -s busybox $out/bin/$a
    done
  '';

  # A top-level package that is not an interpreter (like nixpkgs' hello).
  hello = writeFile "hello-fixture" "bin/hello" ''
    #!${busybox}/bin/sh
    echo "Hello, world!"
  '' true;

  # nixpkgs' CA bundle, from the host's (Debian: ca-certificates).
  cacert = runCommand "cacert-host" { } ''
    mkdir -p $out/etc/ssl/certs
    cp -L /etc/ssl/certs/ca-certificates.crt $out/etc/ssl/certs/ca-bundle.crt
    ln -s ca-bundle.crt $out/etc/ssl/certs/ca-certificates.crt
  '';

  bash = hostPackage "bash-host" ''
    cp -L /usr/bin/bash $out/bin/bash
    ln -s bash $out/bin/sh
  '';

  nodejs = hostPackage "nodejs-host" ''
    cp -L /usr/bin/node $out/bin/node
  '';

  # ---------------------------------------------------------------- python

  python3 = let
    drv = hostPackage "python3-host" ''
      cp -L /usr/bin/python3.11 $out/bin/python3.11
      ln -s python3.11 $out/bin/python3
      ln -s python3.11 $out/bin/python
      # The stdlib next to the binary: python finds prefix=$out via the
      # landmark lib/python3.11/os.py, no PYTHONHOME needed.
      cp -a /usr/lib/python3.11 $out/lib/python3.11
      cd $out/lib/python3.11
      rm -rf test config-3.11-x86_64-linux-gnu lib2to3 ensurepip idlelib \
             pydoc_data sitecustomize.py lib-dynload/_test* lib-dynload/xx*
      find . -name __pycache__ -prune -exec rm -rf {} +
      # Store files get mtime 1, which invalidates timestamp-based .pyc files;
      # hash-based ones stay valid, so startup doesn't recompile the stdlib.
      /usr/bin/python3 -m compileall -q -j 0 --invalidation-mode unchecked-hash . >/dev/null
    '';
  in drv // {
    pkgs = python3Packages;
    withPackages = mkWithPackages {
      interp = drv;
      pkgSet = python3Packages;
      bins = [ "python3" "python" "python3.11" ];
      exports = ps: ''export PYTHONPATH="${concatMapSep ":" (p: "${p}/lib/python3.11/site-packages") ps}''${PYTHONPATH:+:$PYTHONPATH}"'';
    };
  };

  python3Packages = {
    tinypkg = writeFile "python3.11-tinypkg-1.0" "lib/python3.11/site-packages/tinypkg.py" ''
      def hello():
          return "tinypkg ok"
    '' false;
    tinypkg2 = writeFile "python3.11-tinypkg2-1.0" "lib/python3.11/site-packages/tinypkg2.py" ''
      def hello():
          return "tinypkg2 ok"
    '' false;
    # A pure-Python PNG writer (zlib + struct), so a "plot" test writes a real image offline.
    tinypng = writeFile "python3.11-tinypng-1.0" "lib/python3.11/site-packages/tinypng.py" ''
      import struct, zlib

      def _chunk(kind, data):
          body = kind + data
          return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xffffffff)

      def png(width, height, pixel):
          """PNG bytes of an RGB image; pixel(x, y) returns (r, g, b)."""
          rows = b"".join(b"\x00" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height))
          header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
          return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
                  + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b""))

      def write(path, width, height, pixel):
          with open(path, "wb") as f:
              f.write(png(width, height, pixel))
    '' false;
  };

  # ---------------------------------------------------------------- perl

  perl-unwrapped = hostPackage "perl-host-unwrapped" ''
    cp -L /usr/bin/perl $out/bin/perl
    mkdir -p $out/lib/perl5
    cp -a /usr/lib/x86_64-linux-gnu/perl-base $out/lib/perl5/base
    cp -aL /usr/lib/x86_64-linux-gnu/perl/5.36 $out/lib/perl5/arch
    cp -aL /usr/share/perl/5.36 $out/lib/perl5/share
    cp -a /usr/share/perl5 $out/lib/perl5/vendor
  '';

  # Debian's @INC is compiled in as /usr/...; put the store copies on
  # PERL5LIB (in Debian's order), after anything the caller already set.
  perl = mkWrapper {
    name = "perl-host";
    bins = [ { name = "perl"; target = "${perl-unwrapped}/bin/perl"; } ];
    exports = ''export PERL5LIB="''${PERL5LIB:+$PERL5LIB:}${concatMapSep ":" (d: "${perl-unwrapped}/lib/perl5/${d}") [ "vendor" "base" "arch" "share" ]}"'';
  } // {
    pkgs = perlPackages;
    withPackages = mkWithPackages {
      interp = perl;
      pkgSet = perlPackages;
      bins = [ "perl" ];
      exports = ps: ''export PERL5LIB="${concatMapSep ":" (p: "${p}/lib/perl5/site_perl") ps}''${PERL5LIB:+:$PERL5LIB}"'';
    };
  };

  perlPackages = {
    TinyPerl = writeFile "perl5.36-TinyPerl-1.0" "lib/perl5/site_perl/TinyPerl.pm" ''
      package TinyPerl;
      use strict;
      sub hello { return "TinyPerl ok"; }
      1;
    '' false;
  };

  # ---------------------------------------------------------------- lua

  lua5_4 = let
    drv = hostPackage "lua-host-5.4" ''
      cp -L /usr/bin/lua5.4 $out/bin/lua5.4
      ln -s lua5.4 $out/bin/lua
    '';
  in drv // {
    pkgs = lua5_4Packages;
    withPackages = mkWithPackages {
      interp = drv;
      pkgSet = lua5_4Packages;
      bins = [ "lua" "lua5.4" ];
      # Trailing ";;" keeps Lua's default search path.
      exports = ps: ''
        export LUA_PATH="${concatMapSep ";" (p: "${p}/share/lua/5.4/?.lua;${p}/share/lua/5.4/?/init.lua") ps};''${LUA_PATH:-;}"
        export LUA_CPATH="${concatMapSep ";" (p: "${p}/lib/lua/5.4/?.so") ps};''${LUA_CPATH:-;}"
      '';
    };
  };

  lua5_4Packages = {
    tinylua = writeFile "lua5.4-tinylua-1.0" "share/lua/5.4/tinylua.lua" ''
      local M = {}
      function M.hello() return "tinylua ok" end
      return M
    '' false;
  };

  # ---------------------------------------------------------------- ruby

  ruby-unwrapped = hostPackage "ruby-host-unwrapped" ''
    cp -L /usr/bin/ruby $out/bin/ruby
    # Keep Debian's relative layout: lib/ruby/{3.1.0,vendor_ruby,gems} and
    # the arch dirs under lib/x86_64-linux-gnu/ruby.
    cp -a /usr/lib/ruby $out/lib/ruby
    mkdir -p $out/lib/x86_64-linux-gnu
    cp -a /usr/lib/x86_64-linux-gnu/ruby $out/lib/x86_64-linux-gnu/ruby
    rm -rf $out/lib/ruby/gems/3.1.0/doc $out/lib/ruby/gems/3.1.0/cache
  '';

  # Ruby's load path and gem dir are compiled in as /usr/...
  ruby = let
    r = ruby-unwrapped;
  in mkWrapper {
    name = "ruby-host";
    bins = [ { name = "ruby"; target = "${r}/bin/ruby"; } ];
    exports = ''
      export RUBYLIB="''${RUBYLIB:+$RUBYLIB:}${r}/lib/ruby/vendor_ruby/3.1.0:${r}/lib/x86_64-linux-gnu/ruby/vendor_ruby/3.1.0:${r}/lib/ruby/vendor_ruby:${r}/lib/ruby/3.1.0:${r}/lib/x86_64-linux-gnu/ruby/3.1.0"
      export GEM_PATH="''${GEM_PATH:+$GEM_PATH:}${r}/lib/ruby/gems/3.1.0"
    '';
  } // {
    pkgs = rubyPackages;
    withPackages = mkWithPackages {
      interp = ruby;
      pkgSet = rubyPackages;
      bins = [ "ruby" ];
      exports = ps: ''export RUBYLIB="${concatMapSep ":" (p: "${p}/lib/ruby/site_ruby") ps}''${RUBYLIB:+:$RUBYLIB}"'';
    };
  };

  rubyPackages = {
    tinyrb = writeFile "ruby3.1-tinyrb-1.0" "lib/ruby/site_ruby/tinyrb.rb" ''
      module Tinyrb
        def self.hello
          "tinyrb ok"
        end
      end
    '' false;
  };

  # ------------------------------------------------- failure cases for tests

  # A build that fails after printing a log, for the "tail of the build log" error.
  broken = runCommand "broken-fixture" { } ''
    for i in $(seq 1 100); do echo "broken-fixture log line $i"; done
    echo "broken-fixture: the compiler exploded" >&2
    exit 1
  '';

  # A build that outlives any sane build timeout; it never finishes, so it is never cached.
  slow = runCommand "slow-fixture" { } ''
    sleep 600
    mkdir -p $out
  '';

  # Many tiny store paths joined into one env: the 200-path closure of the benchmark.
  manyPaths = buildEnv {
    name = "many-paths";
    paths = builtins.genList (i: writeFile "path-${toString i}" "share/many/${toString i}" "${toString i}\n" false) 199;
  };

  # ---------------------------------------------------------------- buildEnv

  buildEnv = { name, paths, ... }: runCommand name {
    inherit paths;
    builder_script = ./build-env.sh;
  } ''source $builder_script'';

in {
  inherit buildEnv runCommand glibc busybox coreutils cacert bash hello nodejs
    python3 python3Packages perl perlPackages lua5_4 lua5_4Packages
    ruby rubyPackages broken slow manyPaths;
  python311 = python3;
  python311Packages = python3Packages;
  lua = lua5_4;
  luaPackages = lua5_4Packages;
}
