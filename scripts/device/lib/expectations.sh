# Sourced by the device scripts that print, last, what each step should have given against
# what it gave (qualify_check.sh, verdict_check.sh, model_floors.sh).
#   expect NAME WANT GOT        records a row
#   expectations_table [TITLE]  prints the rows sorted by name: TITLE want got ok
declare -A GOT WANT
expect() { WANT[$1]="$2"; GOT[$1]="$3"; }
expectations_table() {
  local title="${1:-expectation}" width k ok
  width=${#title}
  for k in "${!GOT[@]}"; do [ "${#k}" -gt "$width" ] && width=${#k}; done
  printf "%-${width}s  %-6s %-6s %s\n" "$title" want got ok
  for k in "${!GOT[@]}"; do
    ok=no; [ "${GOT[$k]}" = "${WANT[$k]}" ] && ok=yes
    printf "%-${width}s  %-6s %-6s %s\n" "$k" "${WANT[$k]}" "${GOT[$k]}" "$ok"
  done | sort
}
