package dev.nixexec.cli;

import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "completion", mixinStandardHelpOptions = true,
        description = "Print bash completion for ${ROOT-COMMAND-NAME}: source <(${ROOT-COMMAND-NAME} completion bash)",
        footer = {"", "Example:", "  source <(${ROOT-COMMAND-NAME} completion bash)"})
final class CompletionCommand implements Callable<Integer> {

    /** The commands whose first argument is a session; their completion asks the server for names. */
    static final List<String> SESSION_COMMANDS = List.of("enter", "exec", "destroy", "status");

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SHELL", description = "bash, the only one (the default)")
    String shell;

    @Override
    public Integer call() {
        if (shell != null && !shell.equals("bash")) {
            throw new CommandFailure(Exit.USAGE, "completion: '" + Printable.line(shell) + "' is not a shell this has: bash");
        }
        System.out.print(AutoComplete.bash(spec.root().name(), spec.root().commandLine()));
        System.out.print(sessionNames());
        System.out.flush();
        return Exit.OK.code;
    }

    /**
     * Picocli's script completes commands and options; this completes the SESSION of enter, exec,
     * destroy and status with the names the server has ({@code list --names}, with the line's own
     * --server and --key, else the variables), asked when Tab is pressed. The line is split on
     * blanks only (bash's own words split a URL at ':' and '=').
     */
    private String sessionNames() {
        TreeSet<String> valued = new TreeSet<>();
        for (String name : SESSION_COMMANDS) {
            for (OptionSpec option : spec.root().subcommands().get(name).getCommandSpec().options()) {
                if (option.arity().max() > 0) {
                    valued.addAll(List.of(option.names()));
                }
            }
        }
        valued.removeAll(List.of("--server", "--key"));
        return """

                # Session names for %s (%s list --names)
                _nix_exec_session_names() {
                  local line=${COMP_LINE:0:COMP_POINT} words i word command=1 positional=0 connection=()
                  read -ra words <<< "$line"
                  [[ $line =~ [[:space:]]$ ]] && words+=("")
                  local last=$((${#words[@]} - 1))
                  # --server, --key and --json may come before the command's name too
                  while ((command < last)); do
                    case ${words[command]} in
                      --server|--key) connection+=("${words[command]}" "${words[command + 1]}"); command=$((command + 2)) ;;
                      --server=*|--key=*) connection+=("${words[command]}"); command=$((command + 1)) ;;
                      --json) command=$((command + 1)) ;;
                      *) break ;;
                    esac
                  done
                  ((last > command)) || return 1
                  case ${words[command]} in %s) ;; *) return 1 ;; esac
                  for ((i = command + 1; i < last; i++)); do
                    word=${words[i]}
                    case $word in
                      --) return 1 ;;
                      --server|--key) connection+=("$word" "${words[i + 1]}"); i=$((i + 1)) ;;
                      --server=*|--key=*) connection+=("$word") ;;
                      %s) i=$((i + 1)) ;;
                      -*) ;;
                      *) positional=$((positional + 1)) ;;
                    esac
                  done
                  ((positional == 0)) && [[ ${words[last]} != -* ]] || return 1
                  local names
                  names=$("${words[0]}" list --names "${connection[@]}" 2>/dev/null) || return 1
                  COMPREPLY=($(compgen -W "$names" -- "${words[last]}"))
                }

                _nix_exec_complete() {
                  _nix_exec_session_names || _complete_%s "$@"
                }

                complete -F _nix_exec_complete -o default %s
                """.formatted(String.join(", ", SESSION_COMMANDS), spec.root().name(), String.join("|", SESSION_COMMANDS),
                String.join("|", valued), spec.root().name(), spec.root().name());
    }
}
