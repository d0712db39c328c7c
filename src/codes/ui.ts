import type { CodeEntry } from './types.js';

/** Codes of `handoff ui`, the local page. Its reads and its decision answer with the codes of their services. */
export const uiCodes = [
  {
    code: 'UI_PORT_IN_USE',
    exit: 2,
    where: 'ui',
    when: 'The port given with --port is already taken on 127.0.0.1 (by another program or another `handoff ui`). Nothing is served and nothing is written.',
    repair: 'Pass another --port, or --port 0 (the default) for any free port.',
  },
  {
    code: 'UI_REQUEST_REFUSED',
    exit: 2,
    where: 'ui (an HTTP answer, never an exit)',
    when: "A request to the page's server that it does not serve: a decision that does not come from the page itself (no Origin or Sec-Fetch-Site, or a cross-site one: HTTP 403), a method the path does not take (405), or a path the page does not have (404). A request without the page's token, or naming another host than 127.0.0.1 or localhost, gets a bare 403. Nothing is written.",
    repair: 'Open the URL that `handoff ui` printed and decide from that page; the URL carries the token.',
  },
] as const satisfies readonly CodeEntry[];
