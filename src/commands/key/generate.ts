/** `handoff key generate`: a signing key pair (PEM), the private key with mode 0600, outside the data root. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { usage } from '../../errors.js';

const TYPES = ['ecdsa-p256', 'ed25519'] as const;

export default class KeyGenerate extends HandoffCommand {
  static override summary = 'Generate a signing key pair';
  static override description =
    'Writes a new private key (PEM PKCS#8, mode 0600) and its public key (PEM SPKI) into DIR, by default $XDG_CONFIG_HOME/handoff/keys (else ~/.config/handoff/keys): outside the data root, so the folder an agent writes its handoffs to never holds the key that signs them. ECDSA P-256 by default (what cosign and most Sigstore verifiers accept). Point HANDOFF_SIGNING_KEY at the private key to sign finalize, receipts, approval decisions and exports; give the public key to whoever verifies (handoff attest verify --key). An existing file is never overwritten (KEY_EXISTS).';
  static override flags = {
    type: Flags.option({ options: TYPES, default: 'ecdsa-p256' as const })({
      helpValue: 'TYPE',
      description: 'ecdsa-p256 (default) or ed25519',
    }),
    out: Flags.string({
      helpValue: 'DIR',
      description: 'The folder to write the two files to (created 0700 when missing)',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff key generate --out keys',
    'handoff key generate --type ed25519 --out keys --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof KeyGenerate>>): Promise<CommandResult> {
    const { type, out } = ctx.flags;
    if (out !== undefined && (out.trim() === '' || out.includes('\0'))) throw usage('--out must name a folder');
    const { generateKey } = await import('../../keys/generate.js');
    const g = generateKey(ctx.env, ctx.cwd, type, out);
    return {
      json: { status: 'ok', type: g.type, key_id: g.keyId, private_key: g.privatePath, public_key: g.publicPath },
      text: [
        `OK: ${g.type} key ${g.keyId}`,
        `private key: ${g.privatePath} (mode 0600; keep it to yourself)`,
        `public key:  ${g.publicPath}`,
        `Sign with: export HANDOFF_SIGNING_KEY=${g.privatePath}`,
      ].join('\n'),
    };
  }
}
