/**
 * The fish completion script: one `complete` line per word, flag and argument, each with a condition on what the
 * command line holds so far (read once per line by __handoff_parse: the topic, the verb, the positional arguments).
 */
import type { CompletionCommand, CompletionModel, ValueKind } from './model.js';

/** `text` as one single-quoted fish word. */
const fq = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/**
 * The parse of the tokens before the cursor, kept in globals until the line changes (fish asks every condition
 * for every completion). __handoff_takes_value says which flags consume the next token.
 */
const PARSE = [
  'function __handoff_parse',
  '    set -l line (commandline -pc)',
  '    test "$line" = "$__handoff_line"; and return',
  '    set -g __handoff_line $line',
  '    set -g __handoff_topic',
  '    set -g __handoff_id',
  '    set -g __handoff_pos',
  '    set -g __handoff_done 0',
  '    set -l skip 0',
  '    for t in (commandline -opc)[2..-1]',
  '        if test -z "$__handoff_id"',
  '            if string match -q -- "-*" $t',
  '                set -g __handoff_done 1',
  '                return',
  '            end',
  '            if test -z "$__handoff_topic"; and contains -- $t $__handoff_topics',
  '                set -g __handoff_topic $t',
  '            else if test -n "$__handoff_topic"',
  '                set -g __handoff_id "$__handoff_topic:$t"',
  '            else',
  '                set -g __handoff_id $t',
  '            end',
  '            continue',
  '        end',
  '        if test $skip = 1',
  '            set skip 0',
  '            continue',
  '        end',
  '        switch $t',
  '            case --',
  '                set -g __handoff_done 1',
  '                return',
  "            case '--*=*'",
  "            case '-*'",
  '                __handoff_takes_value $__handoff_id $t; and set skip 1',
  "            case '*'",
  '                set -g -a __handoff_pos $t',
  '        end',
  '    end',
  'end',
  '',
  "# No word yet, or only a topic: the first words, or that topic's verbs.",
  'function __handoff_at --argument-names topic',
  '    __handoff_parse',
  '    test $__handoff_done = 0; and test -z "$__handoff_id"; and test "$__handoff_topic" = "$topic"',
  'end',
  '',
  '# The verb on the line is ID (its flags apply).',
  'function __handoff_verb --argument-names id',
  '    __handoff_parse',
  '    test $__handoff_done = 0; and test "$__handoff_id" = "$id"',
  'end',
  '',
  '# The verb on the line is ID and N positional arguments stand before the cursor.',
  'function __handoff_arg --argument-names id n',
  '    __handoff_verb $id; and test (count $__handoff_pos) = $n',
  'end',
  '',
  '# `handoff help TOPIC <here>`.',
  'function __handoff_help_verb --argument-names topic',
  '    __handoff_arg help 1; and test "$__handoff_pos[1]" = "$topic"',
  'end',
];

/** The options of a `complete` line for a flag's value. */
function valueOptions(v: ValueKind): string {
  switch (v.kind) {
    case 'none':
      return '';
    case 'values':
      return ` -x -a ${fq(v.values.join(' '))}`;
    case 'file':
      return ' -r -F';
    case 'dir':
      return ` -x -a '(__fish_complete_directories)'`;
    default:
      return ' -x';
  }
}

/** The `complete` lines of one verb: its flags and its positional arguments with fixed values or paths. */
function verbLines(bin: string, c: CompletionCommand, first: string, helpVerbs: () => string[]): string[] {
  const cond = fq(`__handoff_verb ${c.id}`);
  const lines = c.flags.map((f) => {
    const short = f.short === undefined ? '' : ` -s ${f.short.slice(1)}`;
    return `complete -c ${bin} -n ${cond} -l ${f.long.slice(2)}${short}${valueOptions(f.value)} -d ${fq(f.description)}`;
  });
  c.args.forEach((v, i) => {
    const at = fq(`__handoff_arg ${c.id} ${i}`);
    if (v.kind === 'values') lines.push(`complete -c ${bin} -n ${at} -a ${fq(v.values.join(' '))}`);
    else if (v.kind === 'file') lines.push(`complete -c ${bin} -n ${at} -F`);
    else if (v.kind === 'dir') lines.push(`complete -c ${bin} -n ${at} -a '(__fish_complete_directories)'`);
    else if (v.kind === 'first') lines.push(`complete -c ${bin} -n ${at} -a ${fq(first)}`);
    else if (v.kind === 'verbs') lines.push(...helpVerbs());
  });
  return lines;
}

export function fishScript(model: CompletionModel, header: string[]): string {
  const bin = model.bin;
  const topics = Object.keys(model.verbs);
  const takesValue = model.commands.flatMap((c) =>
    c.flags
      .filter((f) => f.value.kind !== 'none')
      .flatMap((f) => [f.long, ...(f.short === undefined ? [] : [f.short])].map((flag) => fq(`${c.id} ${flag}`))),
  );
  const helpVerbs = (): string[] =>
    Object.entries(model.verbs).map(
      ([topic, verbs]) =>
        `complete -c ${bin} -n ${fq(`__handoff_help_verb ${topic}`)} -a ${fq(verbs.map((v) => v.word).join(' '))}`,
    );
  const firstWords = model.first.map((w) => w.word).join(' ');
  const lines = [
    ...header.map((l) => `# ${l}`),
    '',
    `set -g __handoff_topics ${topics.map(fq).join(' ')}`,
    '',
    '# The flags that take a value (the next token is that value, not an argument).',
    'function __handoff_takes_value --argument-names id flag',
    '    switch "$id $flag"',
    ...(takesValue.length > 0 ? [`        case ${takesValue.join(' ')}`, '            return 0'] : []),
    '    end',
    '    return 1',
    'end',
    '',
    ...PARSE,
    '',
    `complete -c ${bin} -f`,
    ...model.first.map((w) => `complete -c ${bin} -n '__handoff_at ""' -a ${fq(w.word)} -d ${fq(w.description)}`),
    ...Object.entries(model.verbs).flatMap(([topic, verbs]) =>
      verbs.map((w) => `complete -c ${bin} -n ${fq(`__handoff_at ${topic}`)} -a ${fq(w.word)} -d ${fq(w.description)}`),
    ),
    ...model.commands.flatMap((c) => verbLines(bin, c, firstWords, helpVerbs)),
    '',
  ];
  return lines.join('\n');
}
