# zsh -f ztest.zsh FPATHDIR OUT LINE...: completes each LINE in an interactive zsh (through
# zpty) and appends to OUT one line per compadd call: "LINE<TAB>WORD WORD ...".
zmodload zsh/zpty
dir=$1 out=$2
shift 2
# Waits (up to 5 s) until OUT has a line that starts with $1.
await() {
  local i
  for i in {1..50}; do
    [[ -f $out ]] && grep -qF -- "$1" $out && return 0
    sleep 0.1
  done
  return 1
}
zpty z 'zsh -f -i'
zpty -w z "PS1='> '; fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "_fk_wrap() { functions[compadd]='builtin compadd -O __fk \"\$@\"; print -r -- \"\$BUFFER\"\$'\''\\t'\''\"\${(j: :)__fk}\" >> ${(q)out}'; }; compprefuncs=(_fk_wrap)"
zpty -w z "print -r -- READY >> ${(q)out}"
await READY || { print -u2 "zsh did not start"; exit 1 }
for line in "$@"; do
  zpty -n -w z "$line"$'\t'
  await "$line"$'\t' || print -r -- "$line"$'\t'"(no completion)" >> $out
  sleep 0.2
  zpty -n -w z $'\x15'
done
zpty -d z
