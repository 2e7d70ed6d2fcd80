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
    # Ends with a builtin: bash execs the last command of -c itself, and when
    # that is a GNU tool (cp, chmod, ln), it closes the log pipe just before it
    # exits; Nix 2.8 kills the builder's process group on seeing the pipe
    # close, so the finished build could fail with signal 9.
    args = [ "-eu" "-c" "${script}\ntrue" ];
    PATH = hostPath;
    # Host copies are cheap to make and not worth substituting/uploading.
    preferLocalBuild = true;
    allowSubstitutes = false;
  } // builtins.removeAttrs env [ "meta" ]) // {
    meta = { description = "${name} (offline test fixture)"; } // (env.meta or { });
  };

  # Host binaries plus data dirs, made self-contained by fixup.sh.
  hostPackage = name: script: hostPackageWith name { } script;
  hostPackageWith = name: env: script: runCommand name ({ inherit glibc; fixup = ./fixup.sh; } // env) ''
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

  # `exec` wrapper scripts; their shebang must point into the store. The
  # store glibc looks for locales under the host's /usr/lib/locale, which no
  # sandbox has: LOCPATH points it at C.UTF-8 (the LANG every job gets), as
  # nixpkgs' glibc has it, so Perl warns of no missing locale and Ruby reads
  # UTF-8 by default.
  wrapper = exports: target: ''
    #!${busybox}/bin/sh
    export LOCPATH="''${LOCPATH:-${cUtf8Locale}/lib/locale}"
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

  # The host's compiled C.UTF-8 locale (glibc 2.35+ has it, but not built in).
  cUtf8Locale = runCommand "c-utf8-locale-host" { } ''
    mkdir -p $out/lib/locale
    cp -a /usr/lib/locale/C.utf8 $out/lib/locale/
  '';

  # Static busybox: the shell for wrapper scripts.
  busybox = runCommand "busybox-host" { } ''
    mkdir -p $out/bin
    cp -L /bin/busybox $out/bin/busybox
    for a in $($out/bin/busybox --list); do
      [ "$a" = busybox ] || ln -s busybox $out/bin/$a
    done
  '';

  # GNU coreutils (Debian's), every program but stdbuf (its preload library's
  # path is compiled in) and the SELinux-only chcon/runcon.
  coreutils = hostPackage "coreutils-host" ''
    for f in $(dpkg-query -L coreutils | grep -E '^(/usr)?/s?bin/'); do
      case ''${f##*/} in stdbuf|chcon|runcon|md5sum.textutils) continue ;; esac
      cp -L "$f" "$out/bin/''${f##*/}"
    done
  '';

  # Host binaries, one package each, named as in nixpkgs.
  hostBins = name: paths: hostPackage name (concatMapSep "\n" (p: ''cp -L ${p} "$out/bin/${baseNameOf p}"'') paths);

  gnugrep = hostBins "gnugrep-host" [ "/bin/grep" ];
  gnused = hostBins "gnused-host" [ "/bin/sed" ];
  findutils = hostBins "findutils-host" [ "/usr/bin/find" "/usr/bin/xargs" ];
  diffutils = hostBins "diffutils-host" [ "/usr/bin/diff" "/usr/bin/cmp" "/usr/bin/diff3" "/usr/bin/sdiff" ];
  gnutar = hostBins "gnutar-host" [ "/bin/tar" ];
  # Debian's gunzip and zcat are /bin/sh scripts running gzip -d and -cd: the same, on the store sh.
  gzip = hostPackageWith "gzip-host" { inherit busybox; } ''
    cp -L /bin/gzip $out/bin/gzip
    printf '#!%s/bin/sh\nexec %s/bin/gzip -d "$@"\n' $busybox $out > $out/bin/gunzip
    printf '#!%s/bin/sh\nexec %s/bin/gzip -cd "$@"\n' $busybox $out > $out/bin/zcat
    chmod +x $out/bin/gunzip $out/bin/zcat
  '';
  # Debian installs mawk as its awk (gawk is optional there): the fixture's gawk is an awk, not GNU's.
  gawk = hostPackage "gawk-host" ''
    cp -L /usr/bin/mawk $out/bin/awk
  '';
  jq = hostBins "jq-host" [ "/usr/bin/jq" ];
  gnumake = hostBins "gnumake-host" [ "/usr/bin/make" ];

  # curl looks for a CA bundle at Debian's compiled-in /etc path, absent in the
  # sandbox; SSL_CERT_FILE (set for a job with network) or CURL_CA_BUNDLE say where.
  curl = hostBins "curl-host" [ "/usr/bin/curl" ];

  # nixpkgs' `netcat` is LibreSSL's nc, an OpenBSD nc like Debian's netcat-openbsd.
  netcat = hostPackage "netcat-host" ''
    cp -L /bin/nc.openbsd $out/bin/nc
  '';

  # nixpkgs' `dig` is bind's dnsutils output (Debian: bind9-dnsutils).
  dig = hostBins "dig-host" [ "/usr/bin/dig" "/usr/bin/host" "/usr/bin/nslookup" ];

  # git with its helper programs; the exec path and templates are compiled in
  # as /usr/..., so the wrapper points git at the store copies, and Debian's
  # libcurl at the job's CA bundle (nixpkgs' follows SSL_CERT_FILE by itself).
  git-unwrapped = hostPackage "git-host-unwrapped" ''
    mkdir -p $out/libexec $out/share/git-core
    cp -a /usr/lib/git-core $out/libexec/git-core
    # Perl/Python helpers would need interpreters the closure lacks.
    for f in $out/libexec/git-core/*; do
      [ -L "$f" ] && continue
      first=; IFS= read -r first < "$f" 2>/dev/null || true
      case $first in "#!"*perl*|"#!"*python*) rm "$f" ;; esac
    done
    cp -a /usr/share/git-core/templates $out/share/git-core/templates
  '';
  git = mkWrapper {
    name = "git-host";
    bins = [ { name = "git"; target = "${git-unwrapped}/libexec/git-core/git"; } ];
    exports = ''
      export GIT_EXEC_PATH="${git-unwrapped}/libexec/git-core"
      export GIT_TEMPLATE_DIR="''${GIT_TEMPLATE_DIR:-${git-unwrapped}/share/git-core/templates}"
      if [ -n "''${SSL_CERT_FILE:-}" ]; then export GIT_SSL_CAINFO="''${GIT_SSL_CAINFO:-$SSL_CERT_FILE}"; fi
    '';
  };

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

  # ---------------------------------------------------------------- C toolchain
  # Debian's gcc 12 and binutils, and glibc's headers and start files, in the
  # store. Like nixpkgs' cc-wrapper, `gcc` is a wrapper passing the paths the
  # compiler would otherwise look for under /usr: the result links against the
  # store glibc and runs where only the store is visible.

  binutils = hostPackage "binutils-host" ''
    for t in as ld.bfd ld.gold ar nm objcopy objdump ranlib readelf size strings strip; do
      cp -L /usr/bin/x86_64-linux-gnu-$t $out/bin/$t
    done
    ln -s ld.bfd $out/bin/ld
  '';

  # Headers (libc6-dev, linux-libc-dev; the multiarch dir merged into include/),
  # start files, static parts and linker scripts, re-pointed at the store glibc.
  glibc-dev = runCommand "glibc-host-dev" { inherit glibc; } ''
    mkdir -p $out/include $out/lib
    dpkg-query -L libc6-dev linux-libc-dev | sed -n 's|^/usr/include/||p' \
      | tar -C /usr/include --no-recursion -chf - -T - | tar -C $out/include -xf -
    cp -a $out/include/x86_64-linux-gnu/. $out/include/
    rm -rf $out/include/x86_64-linux-gnu
    for f in $(dpkg-query -L libc6-dev | grep -E '^/usr/lib/x86_64-linux-gnu/[^/]*\.(o|a)$'); do
      cp -L "$f" $out/lib/
    done
    echo "GROUP ( $glibc/lib/libc.so.6 $out/lib/libc_nonshared.a AS_NEEDED ( $glibc/lib/ld-linux-x86-64.so.2 ) )" > $out/lib/libc.so
    echo "GROUP ( $glibc/lib/libm.so.6 AS_NEEDED ( $glibc/lib/libmvec.so.1 ) )" > $out/lib/libm.so
    for l in libpthread libdl librt libresolv libutil libanl libmvec; do
      for so in $glibc/lib/$l.so.*; do ln -s $so $out/lib/$l.so; done
    done
  '';

  gcc-unwrapped = hostPackage "gcc-host-unwrapped" ''
    cp -L /usr/bin/x86_64-linux-gnu-gcc-12 $out/bin/gcc
    cp -L /usr/bin/x86_64-linux-gnu-cpp-12 $out/bin/cpp
    # gcc finds these relative to itself: $out/bin/../lib/gcc/<triple>/12.
    d=$out/lib/gcc/x86_64-linux-gnu/12
    mkdir -p $d
    cd /usr/lib/gcc/x86_64-linux-gnu/12
    cp -a cc1 collect2 lto-wrapper liblto_plugin.so include crt*.o libgcc.a libgcc_eh.a libgcov.a \
          libssp_nonshared.a $d/
    cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 $d/
    echo "GROUP ( libgcc_s.so.1 -lgcc )" > $d/libgcc_s.so
  '';

  gcc = let
    g = gcc-unwrapped;
    flags = builtins.concatStringsSep " " [
      "-B${glibc-dev}/lib/" "-B${binutils}/bin/" "-idirafter ${glibc-dev}/include"
      "-L${glibc-dev}/lib" "-Wl,-dynamic-linker=${glibc}/lib/ld-linux-x86-64.so.2"
      "-Wl,-rpath,${glibc}/lib" "-Wl,-rpath,${g}/lib/gcc/x86_64-linux-gnu/12"
    ];
  in mkWrapper {
    name = "gcc-host";
    bins = [
      { name = "gcc"; target = "${g}/bin/gcc ${flags}"; }
      { name = "cc"; target = "${g}/bin/gcc ${flags}"; }
      { name = "cpp"; target = "${g}/bin/cpp -idirafter ${glibc-dev}/include"; }
    ] ++ map (t: { name = t; target = "${binutils}/bin/${t}"; }) [ "as" "ld" "ar" "nm" "ranlib" "strip" "objdump" ];
    exports = "";
  };

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

  # ---------------------------------------------------------------- haskell
  # Debian's GHC 9.0 (dynamically linked: its libraries find each other through
  # $ORIGIN runpaths, kept by fixup.sh). Static archives, profiling files,
  # haddock and the interfaces of Cabal and of the GHC API are left out (Cabal's
  # library stays, for ghc-pkg): runghc interprets code against the shared libraries. The global package db is rewritten to the
  # store paths; ghc-pkg recache rebuilds its cache.

  ghcLib = "lib/ghc";

  # Shell function: drops the haddock-* fields (host paths to docs we don't copy),
  # with their continuation lines, from a package db entry.
  dropHaddockFields = "dropHaddockFields() { awk '/^[^ ]/ { skip = /^haddock-/ } !skip'; }";

  ghc-unwrapped = hostPackage "ghc-host-unwrapped" ''
    ${dropHaddockFields}
    mkdir -p $out/${ghcLib}
    # GHCi opens ghc-bignum's extra library by its development name.
    cp -L /lib/x86_64-linux-gnu/libgmp.so.10 $out/lib/
    tar -C /usr/lib/ghc --exclude=./package.conf.d --exclude='*.a' --exclude='*.o' --exclude='*.p_hi' \
        --exclude='*.dyn_o' --exclude='*.p_o' --exclude='Cabal-3.4.1.0/*hi' --exclude=./html --exclude=./latex \
        --exclude='ghc-9.0.2/*hi' --exclude=./bin/haddock --exclude=./bin/ghc-iserv-prof -cf - . \
      | tar -C $out/${ghcLib} -xf -
    ln -s ../../libgmp.so.10 $out/${ghcLib}/ghc-bignum-1.1/libgmp.so
    db=$out/${ghcLib}/package.conf.d
    mkdir -p $db
    for f in $(dpkg-query -L ghc | grep '^/var/lib/ghc/package.conf.d/.*\.conf$'); do
      case ''${f##*/} in Cabal-*) continue ;; esac
      sed -e "s|/usr/lib/ghc|$out/${ghcLib}|g" -e "s|/usr/share/x86_64-linux-ghc|$out/share/x86_64-linux-ghc|g" "$f" \
        | dropHaddockFields > $db/''${f##*/}
    done
  '';

  # The libdir with the package db's cache, built by the store ghc-pkg, and
  # settings naming the store C compiler and binutils: even runghc calls the C
  # compiler (nixpkgs' ghc, too, has its cc in its closure). The rest links to ghc-unwrapped.
  ghc-db = runCommand "ghc-host-db" { ghc = ghc-unwrapped; } ''
    mkdir -p $out/${ghcLib}
    for e in $ghc/${ghcLib}/*; do
      case ''${e##*/} in package.conf.d|settings) ;; *) ln -s $e $out/${ghcLib}/ ;; esac
    done
    sed -E -e 's#"x86_64-linux-gnu-gcc"#"${gcc}/bin/gcc"#' \
        -e 's#"x86_64-linux-gnu-(ld.gold|ar|ranlib)"#"${binutils}/bin/\1"#' \
        $ghc/${ghcLib}/settings > $out/${ghcLib}/settings
    if grep -q '"x86_64-linux-gnu-' $out/${ghcLib}/settings; then
      echo "ghc settings still name host tools:" >&2; grep '"x86_64-linux-gnu-' $out/${ghcLib}/settings >&2; exit 1
    fi
    cp -r $ghc/${ghcLib}/package.conf.d $out/${ghcLib}/package.conf.d
    chmod -R u+w $out/${ghcLib}/package.conf.d
    $ghc/${ghcLib}/bin/ghc-pkg --global-package-db $out/${ghcLib}/package.conf.d recache
  '';
  ghcTop = "${ghc-db}/${ghcLib}";

  # What runghc runs as `ghc` (-f): the compiler with its libdir, as Debian's /usr/bin/ghc does.
  ghc-bin = mkWrapper {
    name = "ghc-host-bin";
    bins = [ { name = "ghc"; target = "${ghcTop}/bin/ghc -B${ghcTop}"; } ];
    exports = "";
  };

  ghc = mkWrapper {
    name = "ghc-host";
    bins = [
      { name = "ghc"; target = "${ghc-bin}/bin/ghc"; }
      { name = "ghci"; target = "${ghc-bin}/bin/ghc --interactive"; }
      { name = "runghc"; target = "${ghcTop}/bin/runghc -f ${ghc-bin}/bin/ghc"; }
      { name = "runhaskell"; target = "${ghcTop}/bin/runghc -f ${ghc-bin}/bin/ghc"; }
      { name = "ghc-pkg"; target = "${ghcTop}/bin/ghc-pkg --global-package-db ${ghcTop}/package.conf.d"; }
    ];
    exports = "";
  } // {
    inherit haskellPackages;
    withPackages = ghcWithPackages;
  };

  # Like nixpkgs: GHC's boot packages (text, containers, ...) are null in the
  # set, since they come with the compiler; other members are Debian's
  # libghc-*-dev libraries, each with a package db of its own that
  # ghcWithPackages puts on GHC_PACKAGE_PATH.
  haskellPackage = debName: libName: hostPackageWith "ghc9.0.2-${libName}" { ghc = ghc-unwrapped; } ''
    # GHC's own libraries are linked from the ghc package, never copied (loaded once).
    fixupLibDirs=$(echo $ghc/${ghcLib}/*/)
    ${dropHaddockFields}
    hs=/usr/lib/haskell-packages/ghc/lib/x86_64-linux-ghc-9.0.2
    mkdir -p $out/lib/haskell $out/${ghcLib}/package.conf.d
    for f in $(dpkg-query -L ${debName} | grep "^$hs/"); do
      case $f in *.a|*.p_hi) continue ;; esac
      rel=''${f#$hs/}
      if [ -d "$f" ]; then mkdir -p "$out/lib/haskell/$rel"; else cp -L "$f" "$out/lib/haskell/$rel"; fi
    done
    for f in $(dpkg-query -L ${debName} | grep '^/var/lib/ghc/package.conf.d/.*\.conf$'); do
      sed -e "s|$hs|$out/lib/haskell|g" -e "s|^data-dir:.*|data-dir: $out/share|" "$f" \
        | dropHaddockFields > $out/${ghcLib}/package.conf.d/''${f##*/}
    done
  '';

  haskellPackages = {
    ghc = ghc;
    ghcWithPackages = ghcWithPackages;
    split = haskellPackage "libghc-split-dev" "split";
  } // builtins.listToAttrs (map (n: { name = n; value = null; }) [
    "array" "base" "binary" "bytestring" "containers" "deepseq" "directory" "exceptions" "filepath"
    "ghc-bignum" "ghc-boot" "ghc-boot-th" "ghc-compact" "ghc-heap" "ghc-prim" "ghci" "haskeline" "hpc"
    "integer-gmp" "libiserv" "mtl" "parsec" "pretty" "process" "rts" "stm" "template-haskell" "terminfo"
    "text" "time" "transformers" "unix" "xhtml" ]);

  ghcWithPackages = f:
    let chosen = builtins.filter (p: p != null) (f haskellPackages);
        dbs = map (p: runCommand "${p.name}-db" { pkg = p; } ''
          mkdir -p $out
          cp $pkg/${ghcLib}/package.conf.d/*.conf $out/
          ${ghcTop}/bin/ghc-pkg --global-package-db ${ghcTop}/package.conf.d --package-db $out recache
        '') chosen;
    in mkWrapper {
      name = "ghc-host-with-packages";
      bins = map (b: { name = b; target = "${ghc}/bin/${b}"; }) [ "ghc" "ghci" "runghc" "runhaskell" "ghc-pkg" ];
      # The trailing ":" keeps the global db after these.
      exports = ''export GHC_PACKAGE_PATH="${concatMapSep ":" toString dbs}:"'';
      refs = chosen ++ dbs;
    };

  # ---------------------------------------------------------------- octave
  # Debian's Octave 7.3 (octave-cli, no GUI), relocated with OCTAVE_HOME: it
  # derives every data and library directory from that prefix. The fltk
  # graphics toolkit (X11, OpenGL widgets) is left out.

  octaveArchDir = "lib/x86_64-linux-gnu/octave";

  octave-unwrapped = hostPackage "octave-host-unwrapped" ''
    cp -L /usr/bin/octave-cli $out/bin/octave-cli
    mkdir -p $out/share/octave $out/${octaveArchDir} $out/libexec
    cp -a /usr/share/octave/7.3.0 /usr/share/octave/site $out/share/octave/
    rm -rf $out/share/octave/7.3.0/doc
    # liboct* reach $out/lib through fixup (one copy, loaded once); oct files stay in place.
    cp -a /usr/lib/x86_64-linux-gnu/octave/7.3.0 /usr/lib/x86_64-linux-gnu/octave/site $out/${octaveArchDir}/
    rm -f $out/${octaveArchDir}/7.3.0/lib*.so* $out/${octaveArchDir}/7.3.0/oct/*/__init_fltk__.oct \
          $out/${octaveArchDir}/7.3.0/oct/*/__fltk_uigetfile__.oct
    sed -i '/__init_fltk__\|__fltk_uigetfile__/d' $out/${octaveArchDir}/7.3.0/oct/*/PKG_ADD
    cp -a /usr/libexec/octave $out/libexec/octave
  '';

  # An OCTAVE_HOME: the interpreter's tree plus packages' directories and
  # their entries in share/octave/octave_packages, pkg's global list (whose
  # paths Debian writes relative to OCTAVE_HOME, as __OH__).
  octaveHome = pkgs: runCommand "octave-home" { inherit pkgs; u = octave-unwrapped; } ''
    mkdir -p $out/share/octave/packages $out/${octaveArchDir}/packages
    ln -s $u/bin $u/libexec $out/
    for e in $u/share/octave/*; do ln -s $e $out/share/octave/; done
    for e in $u/${octaveArchDir}/*; do ln -s $e $out/${octaveArchDir}/; done
    lists=
    for p in $pkgs; do
      ln -s $p/share/octave/packages/* $out/share/octave/packages/
      ln -s $p/${octaveArchDir}/packages/* $out/${octaveArchDir}/packages/
      lists="$lists '$p/share/octave/octave_packages'"
    done
    export HOME=$TMPDIR
    /usr/bin/octave-cli --no-gui --norc --quiet --eval "
      global_packages = {};
      for f = {$lists}
        s = load (f{1});
        global_packages = [global_packages, s.global_packages];
      end
      save ('-text', '$out/share/octave/octave_packages', 'global_packages');"
  '';

  octaveWrapper = name: home: mkWrapper {
    inherit name;
    bins = map (b: { name = b; target = "${octave-unwrapped}/bin/octave-cli"; }) [ "octave-cli" "octave" ];
    exports = "export OCTAVE_HOME=${home}";
  };

  octave = octaveWrapper "octave-host" (octaveHome [ ]) // {
    pkgs = octavePackages;
    withPackages = f: octaveWrapper "octave-host-with-packages" (octaveHome (f octavePackages));
  };

  # Debian's octave-<name> package: its directories and its entry of Debian's global list.
  octavePackage = debName: name: hostPackageWith "octave-${name}" { octave = octave-unwrapped; } ''
    fixupLibDirs=$octave/lib
    mkdir -p $out/share/octave/packages $out/${octaveArchDir}/packages
    cp -a /usr/share/octave/packages/${name}-* $out/share/octave/packages/
    cp -a /usr/lib/x86_64-linux-gnu/octave/packages/${name}-* $out/${octaveArchDir}/packages/
    export HOME=$TMPDIR
    /usr/bin/octave-cli --no-gui --norc --quiet --eval "
      s = load ('/usr/share/octave/octave_packages');
      global_packages = s.global_packages(cellfun (@(p) strcmp (p.name, '${name}'), s.global_packages));
      if (numel (global_packages) != 1) error ('${name} is not in Debian octave_packages'); end
      save ('-text', '$out/share/octave/octave_packages', 'global_packages');"
  '';

  octavePackages = {
    statistics = octavePackage "octave-statistics" "statistics";
  };

  # ------------------------------------------ tools of nixo's catalog (issue 37)

  # Debian's rustc and cargo. rustc takes its sysroot from where its
  # librustc_driver lies (the fixup copies it into $out/lib), so the standard
  # library's rlibs go to $out/lib/rustlib; it links with the environment's
  # `cc` (gcc), as nixpkgs' rustc does.
  rustc = hostPackage "rustc-host" ''
    cp -L /usr/bin/rustc $out/bin/rustc
    cp -a /usr/lib/rustlib $out/lib/rustlib
  '';
  cargo = hostBins "cargo-host" [ "/usr/bin/cargo" ];
  ripgrep = hostBins "ripgrep-host" [ "/usr/bin/rg" ];
  # Debian names fd's binary fdfind (a name clash there); nixpkgs' is fd.
  fd = hostPackage "fd-host" ''cp -L /usr/bin/fdfind $out/bin/fd'';
  zsh = hostBins "zsh-host" [ "/usr/bin/zsh" ];
  less = hostBins "less-host" [ "/usr/bin/less" ];

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

  # The 500-path closure of the benchmark (issue 18): 498 more tiny paths, the env and busybox.
  manyMorePaths = buildEnv {
    name = "many-more-paths";
    paths = builtins.genList (i: writeFile "more-path-${toString i}" "share/more/${toString i}" "${toString i}\n" false) 498;
  };

  # ---------------------------------------------------------------- buildEnv

  buildEnv = { name, paths, ... }: runCommand name {
    inherit paths;
    builder_script = ./build-env.sh;
  } ''source $builder_script'';

in {
  inherit buildEnv runCommand glibc busybox coreutils cacert bash hello nodejs
    python3 python3Packages perl perlPackages lua5_4 lua5_4Packages
    ruby rubyPackages broken slow manyPaths manyMorePaths
    gnugrep gnused findutils diffutils gnutar gzip gawk jq gnumake curl netcat dig git binutils gcc
    ghc haskellPackages octave octavePackages
    rustc cargo ripgrep fd zsh less;
  python311 = python3;
  python311Packages = python3Packages;
  lua = lua5_4;
  luaPackages = lua5_4Packages;
}
