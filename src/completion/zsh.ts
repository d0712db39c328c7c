/**
 * The zsh completion script: the command table as `case` functions (case-data.ts, with descriptions) and one
 * completion function for the completion system (compinit). It works both sourced (`source <(handoff autocomplete
 * zsh)`, which registers it with compdef) and as the file `_handoff` in a folder of $fpath (autoloaded: the file's
 * text is the function's body, which defines the functions and completes at once).
 */
import { caseData } from './case-data.js';
import type { CompletionModel } from './model.js';

/**
 * Reads the words before the cursor (`words`, 1-based, up to CURRENT): the topic and verb, then flags (skipping
 * each flag's value) and positional arguments; then offers what may stand under the cursor through compadd (or
 * _files for a path). For `--flag=value` the part up to `=` moves to IPREFIX, as `compset -P '*='` does.
 */
const MAIN = [
  '_handoff() {',
  '  local cur=$words[CURRENT] w id= topic= flag= i',
  '  local -a hreply hdesc pos',
  '  for (( i = 2; i < CURRENT; i++ )); do',
  '    w=$words[i]',
  '    if [[ -n $flag ]]; then flag=; continue; fi',
  '    if [[ -z $id ]]; then',
  '      [[ $w == -* ]] && return 1',
  '      if [[ -z $topic ]] && _handoff_topic "$w"; then topic=$w; continue; fi',
  '      id=${topic:+$topic:}$w',
  '      _handoff_flags "$id"',
  '      (( $#hreply )) || return 1',
  '      continue',
  '    fi',
  '    case $w in',
  '      --) return 1 ;;',
  '      --*=*) ;;',
  '      -*) _handoff_value "$id" "$w"; [[ $hreply[1] == none ]] || flag=$w ;;',
  '      *) pos+=("$w") ;;',
  '    esac',
  '  done',
  '  if [[ -n $flag ]]; then',
  '    _handoff_value "$id" "$flag"',
  '  elif [[ -z $id ]]; then',
  '    _handoff_words "$topic"',
  '  elif [[ $cur == --*=* ]]; then',
  '    _handoff_value "$id" "${cur%%=*}"',
  '    IPREFIX="$IPREFIX${cur%%=*}="',
  '    PREFIX=${PREFIX#*=}',
  '  elif [[ $cur == -* ]]; then',
  '    _handoff_flags "$id"',
  '  else',
  '    _handoff_arg "$id" $#pos',
  '    case $hreply[1] in',
  "      first) _handoff_words '' ;;",
  '      verbs) _handoff_words "$pos[1]" ;;',
  '    esac',
  '  fi',
  '  case $hreply[1] in',
  '    values)',
  '      if (( $#hdesc )); then',
  '        compadd -l -d hdesc -- "${(@)hreply[2,-1]}"',
  '      else',
  '        compadd -- "${(@)hreply[2,-1]}"',
  '      fi ;;',
  '    file) _files ;;',
  '    dir) _files -/ ;;',
  '    *) return 1 ;;',
  '  esac',
  '}',
].join('\n');

/** Autoloaded from $fpath: complete now; sourced: register with the completion system. */
const REGISTER = [
  'if [[ $funcstack[1] == _handoff ]]; then',
  '  _handoff "$@"',
  'elif (( $+functions[compdef] )); then',
  '  compdef _handoff BIN',
  'else',
  "  print -u2 'handoff completion: load the completion system first (autoload -Uz compinit && compinit)'",
  'fi',
];

export function zshScript(model: CompletionModel, header: string[]): string {
  return [
    `#compdef ${model.bin}`,
    ...header.map((l) => `# ${l}`),
    '',
    caseData(model, true),
    '',
    MAIN,
    '',
    ...REGISTER.map((l) => l.replace('BIN', model.bin)),
    '',
  ].join('\n');
}
