/** The bash completion script: the command table as `case` functions (case-data.ts) and one completion function. */
import { caseData } from './case-data.js';
import type { CompletionModel } from './model.js';

/**
 * Reads the words before the cursor (COMP_WORDS up to COMP_CWORD): the topic and verb, then flags (skipping each
 * flag's value) and positional arguments; then offers what may stand under the cursor. bash splits `--flag=value`
 * at `=` (COMP_WORDBREAKS), so a lone `=` after a flag that takes a value still belongs to that flag.
 */
const MAIN = [
  '_handoff() {',
  '  local cur=${COMP_WORDS[COMP_CWORD]} w id= topic= flag= prefix= i',
  '  local -a hreply pos',
  '  COMPREPLY=()',
  '  for (( i = 1; i < COMP_CWORD; i++ )); do',
  '    w=${COMP_WORDS[i]}',
  '    if [[ -n $flag ]]; then',
  '      [[ $w == = ]] || flag=',
  '      continue',
  '    fi',
  '    if [[ -z $id ]]; then',
  '      [[ $w == -* ]] && return 0',
  '      if [[ -z $topic ]] && _handoff_topic "$w"; then topic=$w; continue; fi',
  '      id=${topic:+$topic:}$w',
  '      _handoff_flags "$id"',
  '      (( ${#hreply[@]} )) || return 0',
  '      continue',
  '    fi',
  '    case $w in',
  '      --) return 0 ;;',
  '      --*=*) ;;',
  '      -*) _handoff_value "$id" "$w"; [[ ${hreply[0]} == none ]] || flag=$w ;;',
  '      *) pos+=("$w") ;;',
  '    esac',
  '  done',
  '  if [[ -n $flag ]]; then',
  '    [[ $cur == = ]] && cur=',
  '    _handoff_value "$id" "$flag"',
  '  elif [[ -z $id ]]; then',
  '    _handoff_words "$topic"',
  '  elif [[ $cur == --*=* ]]; then',
  '    prefix=${cur%%=*}=',
  '    _handoff_value "$id" "${cur%%=*}"',
  '    cur=${cur#*=}',
  '  elif [[ $cur == -* ]]; then',
  '    _handoff_flags "$id"',
  '  else',
  '    _handoff_arg "$id" "${#pos[@]}"',
  '    case ${hreply[0]} in',
  "      first) _handoff_words '' ;;",
  '      verbs) _handoff_words "${pos[0]}" ;;',
  '    esac',
  '  fi',
  '  case ${hreply[0]} in',
  '    values)',
  '      for w in "${hreply[@]:1}"; do',
  '        [[ $w == "$cur"* ]] && COMPREPLY+=("$prefix$w")',
  '      done ;;',
  '    file)',
  '      compopt -o filenames 2>/dev/null',
  '      mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;',
  '    dir)',
  '      compopt -o filenames 2>/dev/null',
  '      mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;',
  '  esac',
  '  return 0',
  '}',
].join('\n');

export function bashScript(model: CompletionModel, header: string[]): string {
  return [
    ...header.map((l) => `# ${l}`),
    '',
    caseData(model, false),
    '',
    MAIN,
    '',
    `complete -F _handoff ${model.bin}`,
    '',
  ].join('\n');
}
