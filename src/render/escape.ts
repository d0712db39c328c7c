/**
 * Human output never carries a raw control character from data (a goal, a path, a message quoting input): an ESC
 * could repaint the terminal or hide text. Tabs and line feeds stay (layout); every other C0 character, DEL and C1
 * becomes a visible `\u00XX` escape. Colour is added after this, on the way out.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point of this module
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const uEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export const escapeControls = (text: string): string => text.replace(CONTROL_RE, uEscape);
