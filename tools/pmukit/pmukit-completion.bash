# bash completion for pmukit. The lists come from pmukit itself, made from
# the same option tables as its parser and its help (tools/pmukit/cli_opts.c):
# `pmukit --list-cmds` the commands, `pmukit CMD --list-opts` a command's long
# options (perf's interface). Install as
# /usr/share/bash-completion/completions/pmukit, or source it.
_pmukit()
{
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]} sub=""
	local i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) sub=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $sub ]]; then
		COMPREPLY=($(compgen -W "$($cmd --list-cmds 2>/dev/null) help --help --version" -- "$cur"))
	elif [[ $sub == help ]]; then
		COMPREPLY=($(compgen -W "$($cmd --list-cmds 2>/dev/null)" -- "$cur"))
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$($cmd "$sub" --list-opts 2>/dev/null)" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _pmukit pmukit
