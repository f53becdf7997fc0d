#!/usr/bin/env zsh
# Prints LINE as zsh's completion leaves it after one TAB (less a trailing space), with the completion functions of FOLDER first in $fpath:
# a real interactive zsh (zsh -f -i, compinit) on a pseudo-terminal (zsh/zpty), as a user's prompt would do it.
# The tests check the completion scripts with it (scripts/test-deb.sh, CompletionTests).
#
#   zsh scripts/complete-zsh.zsh FOLDER 'mediaexport --preset hi'   # → mediaexport --preset highest
emulate -L zsh
setopt extendedglob
zmodload zsh/zpty || { print -u2 "complete-zsh.zsh: no zsh/zpty module"; exit 2; }
(( $# == 2 )) || { print -u2 "usage: complete-zsh.zsh FOLDER LINE"; exit 2; }
folder=${1:A} line=$2 out=$(mktemp)
zpty shell zsh -f -i
zpty -w shell "PS1=''; fpath=(${(q)folder} \$fpath); autoload -U compinit; compinit -u -D"
# Ctrl-X writes the line as it stands to the file; TAB before it completes.
zpty -w shell "buffer-to-file() { print -r -- \"\$BUFFER\" >${(q)out}; BUFFER=; zle accept-line }"
zpty -w shell "zle -N buffer-to-file; bindkey '^X' buffer-to-file"
zpty -w -n shell "$line"$'\t\C-x'
for i in {1..100}; do [[ -s $out ]] && break; sleep 0.1; done
zpty -d shell
[[ -s $out ]] || { print -u2 "complete-zsh.zsh: zsh did not answer in 10 s"; rm -f $out; exit 1; }
result=$(<$out)
print -r -- "${result%%[[:space:]]#}"   # without the space completion leaves after a word
rm -f $out
