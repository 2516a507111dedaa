import { programOf } from './shell-text';

/** A remote shell's options that take a value: the letters, and the long options (`--ssh CMD`; `--ssh=CMD` is one word anyway). */
interface ValueOptions {
  letters: ReadonlySet<string>;
  long: ReadonlySet<string>;
}

/**
 * ssh's options that take a value: the letters its getopt string (OpenSSH ssh.c) has a colon after.
 * The others (-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y) take none.
 */
const SSH_VALUE_OPTIONS = 'BbcDEeFIiJLlmOoPpQRSWw';
/**
 * Programs that have a command run on another machine as `program [options] host [options] [command…]`:
 * ssh, slogin (a link to it), autossh (ssh's options and its own -M port), rsh, and mosh.
 */
const REMOTE_SHELLS: Record<string, ValueOptions> = {
  ssh: { letters: new Set(SSH_VALUE_OPTIONS), long: new Set() },
  slogin: { letters: new Set(SSH_VALUE_OPTIONS), long: new Set() },
  autossh: { letters: new Set(`${SSH_VALUE_OPTIONS}M`), long: new Set() },
  rsh: { letters: new Set('klt'), long: new Set() },
  mosh: {
    letters: new Set('p'),
    long: new Set(['client', 'server', 'ssh', 'predict', 'family', 'port', 'bind-server', 'experimental-remote-ip']),
  },
};

/** Whether `word` runs a remote shell (ssh, slogin, autossh, rsh, mosh). */
export function isRemoteShell(word: string): boolean {
  return Object.hasOwn(REMOTE_SHELLS, programOf(word));
}
/**
 * `-o RemoteCommand=…` (or `RemoteCommand …`): the command to run there given as an option; ProxyCommand
 * and LocalCommand are shell text ssh has the user's shell run here.
 */
const COMMAND_OPTION = /^\s*(RemoteCommand|ProxyCommand|LocalCommand)\s*(?:=\s*|\s)([\s\S]*)$/i;

/**
 * The shell text `ssh [options] host [options] [command words…]` (`args`, its words after the program
 * `shell`, ssh or another remote shell) has run: on
 * the other machine (`remote`) the command words joined with spaces, as ssh sends them to the remote
 * shell, and any RemoteCommand option; on this one (`local`) any ProxyCommand or LocalCommand option;
 * `commandAt`, the index in `args` of the first command word, or -1 when there is none.
 * Options are read as ssh reads them: letters grouped (`-tt`, `-vp22`), a value in the same word or
 * the next, and again after the host, up to the first other word or `--`.
 */
export function remoteCommands(shell: string, args: readonly string[]): { remote: string[]; local: string[]; commandAt: number } {
  const valueOptions = REMOTE_SHELLS[programOf(shell)] ?? { letters: new Set<string>(), long: new Set<string>() };
  const remote: string[] = [];
  const local: string[] = [];
  let i = 0;
  /** Reads options from `i`; true when `--` ended them. */
  const readOptions = (): boolean => {
    while (i < args.length) {
      const word = args[i] as string;
      if (word === '--') {
        i++;
        return true;
      }
      if (!word.startsWith('-') || word === '-') return false;
      i++;
      if (word.startsWith('--')) {
        if (valueOptions.long.has(word.slice(2))) i++;
        continue;
      }
      for (let at = 1; at < word.length; at++) {
        if (!valueOptions.letters.has(word.charAt(at))) continue;
        const value = at + 1 < word.length ? word.slice(at + 1) : args[i++];
        const option = word.charAt(at) === 'o' && value !== undefined ? COMMAND_OPTION.exec(value) : null;
        if (option) (option[1]?.toLowerCase() === 'remotecommand' ? remote : local).push(option[2] as string);
        break;
      }
    }
    return false;
  };
  const ended = readOptions();
  if (i >= args.length) return { remote, local, commandAt: -1 };
  i++; // the host: ssh reads options again after it, unless `--` came before
  if (!ended) readOptions();
  if (i >= args.length) return { remote, local, commandAt: -1 };
  remote.push(args.slice(i).join(' '));
  return { remote, local, commandAt: i };
}
