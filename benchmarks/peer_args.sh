# Sourced by the peer_*.sh scripts, which take their settings from environment
# variables only: `--help` prints the calling script's header comment (exit 0),
# any other argument is refused (exit 2) rather than silently ignored.
peer_script_args() {  # script_path "$@"
  local script=$1
  shift
  case "${1:-}" in
    "") return 0 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$script" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
  esac
  echo "$(basename "$script" .sh): unknown argument '$1' (settings are environment variables; see $(basename "$script") --help)" >&2
  exit 2
}
