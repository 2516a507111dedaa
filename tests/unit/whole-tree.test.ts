import { describe, expect, it } from 'vitest';
import { SafetyPolicy } from '../../src-main/commands/safety-policy';
import { isWholeTree, wholeTreeCommand } from '../../src-main/commands/whole-tree';
import { SafetyConfig } from '../../src-main/host/config';

/** The built-in rule against removing or recursively re-owning a whole tree, and the default deny list. */
const policy = new SafetyPolicy(SafetyConfig.parse({}));
const decide = (command: string) => policy.evaluate({ toolName: 'execute_command', args: { command }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
const typed = (text: string) =>
  policy.evaluate({ toolName: 'type_text', args: { text }, trustedTool: true, modelStatus: 'CONTINUE', targetApp: 'gedit' }).decision;

describe('the whole-tree rule in the safety policy', () => {
  it('evaluates a command with many --options in linear time (no catastrophic backtracking)', () => {
    // `docker run --rm` once gave a deny pattern's `\brm` a start, and each `--opt` two ways to split.
    const command = `docker run --rm${' --ab'.repeat(30)} image`;
    const started = performance.now();
    decide(command);
    const ms = performance.now() - started;
    // With that pattern each extra option doubled the time (27 options: about 30 s on the host's main
    // thread, 30 several minutes); a linear check takes well under a millisecond. The bound is loose on purpose.
    expect(ms).toBeLessThan(5_000);
  });

  it('the same blow-up is reachable through typed text, not only shell commands', () => {
    const text = `notes: rm${' --x'.repeat(30)}`;
    const started = performance.now();
    typed(text);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('denies the quoted-home idioms the pattern claims to catch ("maybe quoted, maybe with /*")', () => {
    expect(decide('rm -rf "$HOME"/*')).toBe('deny');
    expect(decide('rm -rf "$HOME/"*')).toBe('deny');
    expect(decide('rm -rf "${HOME}"/')).toBe('deny');
  });

  it('denies the root spelled with a dot segment or a trailing slash after the glob', () => {
    expect(decide('rm -rf /./*')).toBe('deny');
    expect(decide('rm -rf /*/')).toBe('deny');
  });

  it('denies a whole tree handed to a shell as text, in the never mode too and through launch_app', () => {
    const never = new SafetyPolicy(SafetyConfig.parse({ confirmation: 'never' }));
    const shell = { toolName: 'execute_command', args: { command: `bash -c 'rm -rf "$HOME"'` }, trustedTool: true, modelStatus: 'CONTINUE' };
    expect(never.evaluate(shell).decision).toBe('deny');
    const launch = { toolName: 'launch_app', args: { name: 'sh', args: `-c 'rm -rf /*'` }, trustedTool: true, modelStatus: 'CONTINUE' };
    expect(never.evaluate(launch).decision).toBe('deny');
  });

  it('reads a relative target in the folder the command runs in: home unless it says otherwise, or where a cd took it', () => {
    const inFolder = (command: string, cwd?: string) =>
      policy.evaluate({ toolName: 'execute_command', args: cwd === undefined ? { command } : { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('rm -rf *')).toBe('deny'); // in home, the command's folder when none is given
    expect(inFolder('rm -rf ./*', '~')).toBe('deny');
    expect(inFolder('chmod -R 777 .')).toBe('deny');
    expect(inFolder('rm -rf *', '/')).toBe('deny');
    expect(inFolder('rm -rf ../..', '/tmp/build')).toBe('deny');
    expect(inFolder('cd / && rm -rf *', '/tmp')).toBe('deny');
    // A script's own cd inside the quotes of bash -c is followed like any other.
    expect(inFolder('bash -c "cd /tmp/build && rm -rf *"')).not.toBe('deny');
    expect(inFolder(`sh -c 'cd ~/project; chmod -R 755 .'`)).not.toBe('deny');
    expect(inFolder('cd && rm -rf ./*', '/tmp')).toBe('deny');
    expect(inFolder('rm -rf *', 'projects/app/build')).not.toBe('deny');
    expect(inFolder('cd build && rm -rf *')).not.toBe('deny');
    expect(inFolder('cd "$OUT" && rm -rf *')).toBe('deny'); // OUT empty: cd "" stays in home
    expect(inFolder('cd "${OUT:?}" && rm -rf *')).not.toBe('deny'); // where $OUT is cannot be told
    expect(inFolder('rm -rf node_modules dist')).not.toBe('deny');
    expect(typed('rm -rf *')).not.toBe('deny'); // typed text: the folder it would run in is not known
  });

  it("does not read chown's or chgrp's owner as a folder: root or bin named in / is not /root or /bin", () => {
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('sudo chown -R root /opt/app', '/')).not.toBe('deny');
    expect(inFolder('cd / && sudo chgrp -R bin /srv/tools', '/tmp')).not.toBe('deny');
    expect(inFolder('sudo chown -R root ~', '/')).toBe('deny');
    expect(inFolder('sudo chown -R root root', '/')).toBe('deny'); // the second root is the folder
    expect(inFolder('sudo chown -R --reference=/etc/hosts root', '/')).toBe('deny'); // no owner: every operand is a file
  });

  it('follows a cd that comes after a keyword of the shell (then, do, a { group): the rm after it runs where it went', () => {
    const inHome = (command: string) => policy.evaluate({ toolName: 'execute_command', args: { command }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inHome('if [ -d ~/app/build ]; then cd ~/app/build && rm -rf *; fi')).not.toBe('deny');
    expect(inHome('for d in ~/a ~/b; do cd "$d" && rm -rf ./*; done')).not.toBe('deny');
    expect(inHome('{ cd ~/app/dist && rm -rf *; }')).not.toBe('deny');
    expect(inHome('if cd ~/app/build; then rm -rf *; fi')).not.toBe('deny');
    expect(inHome('if true; then cd / && rm -rf *; fi')).toBe('deny');
    // cd run as a builtin, and popd going back to where pushd left.
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('builtin cd / && rm -rf *', '/tmp/build')).toBe('deny');
    expect(inFolder('command cd ~; rm -rf .', '/tmp/build')).toBe('deny');
    expect(inFolder('pushd / && ls && popd && rm -rf *', '/tmp/build')).not.toBe('deny');
    expect(inFolder('pushd /tmp && popd && rm -rf *', '~')).toBe('deny'); // back in home
    expect(inFolder('popd; rm -rf *', '/tmp/build')).not.toBe('deny'); // where to cannot be told
  });

  it('lets git rm --cached through in home, which only untracks files, but not a git rm that deletes them', () => {
    const inHome = (command: string) => policy.evaluate({ toolName: 'execute_command', args: { command }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inHome('git rm -r --cached .')).not.toBe('deny');
    expect(inHome('git rm --cached -r -q -- .')).not.toBe('deny');
    expect(inHome('git -C ~ rm -r . --cached')).not.toBe('deny'); // git reads options after the paths too
    expect(inHome('git rm -r --cach .')).not.toBe('deny'); // a shortened option, as git allows
    expect(inHome('git rm -r .')).toBe('deny');
    expect(inHome('git rm -rf ~')).toBe('deny');
    expect(inHome('git rm -r -- . --cached')).toBe('deny'); // after --, "--cached" is a path
    expect(inHome('git rm -r --cached . && rm -rf ~')).toBe('deny');
    expect(inHome('rm -rf --cached ~')).toBe('deny'); // only git rm has --cached
  });

  it('lets a dry run of git rm through in home: it only lists what would go', () => {
    const inHome = (command: string) => policy.evaluate({ toolName: 'execute_command', args: { command }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inHome('git rm -r -n .')).not.toBe('deny');
    expect(inHome('git rm -rn .')).not.toBe('deny');
    expect(inHome('git rm --dry-run -r .')).not.toBe('deny');
    expect(inHome('git rm -r --dry .')).not.toBe('deny');
    expect(inHome('git rm -r -- -n .')).toBe('deny'); // after --, "-n" is a path
    expect(inHome('rm -rn ~')).toBe('deny'); // rm has no dry run
  });

  it('does not take rm --d (rm --dir) for git rm --dry-run when a word git comes before rm', () => {
    const inHome = (command: string) => policy.evaluate({ toolName: 'execute_command', args: { command }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    // GNU rm reads --d as --dir and deletes: here "git" is sudo's user, not the program.
    expect(inHome('sudo -u git rm -rf --d ~')).toBe('deny');
    expect(inHome('git rm -r --dr .')).not.toBe('deny'); // --dr is no rm option, so rm would delete nothing
  });

  it('does not deny (unapprovably) a multi-line script whose later line merely mentions ~ or /', () => {
    // A deny cannot be approved: the rm of line 1 must not take the ~ or / of a later line for its target.
    expect(decide('rm -rf build\ncd ~')).not.toBe('deny');
    expect(decide('rm -r node_modules\nmkdir out\ncp -r dist /')).not.toBe('deny');
  });
});

describe('wholeTreeCommand', () => {
  const HOME = '/home/ana';
  const wipes = (text: string) => wholeTreeCommand(text, HOME);

  it('finds the program after wrappers, with its recursive flag anywhere among the options', () => {
    expect(wipes('sudo -u root rm -v -- -r /')).toBeNull(); // after --, "-r" is a file name, not a flag
    expect(wipes('sudo -u root rm -v -r -- /')).toBe('rm /');
    expect(wipes('env LC_ALL=C nice -n 5 /bin/rm --force --recursive /var')).toBe('rm /var');
    expect(wipes('find . -name x | xargs chown -R ana ~')).toBe('chown ~');
    expect(wipes('cd /tmp && chmod -r ~')).toBeNull(); // chmod -r takes away read permission: not recursive
  });

  it('reads a here-document written out by cat or tee as commands: the same text may run it, or a shell start-up may', () => {
    // Written, then run, sourced or scheduled on the same command line.
    expect(wipes("cat > /tmp/x.sh <<'EOF'\nrm -rf ~\nEOF\nbash /tmp/x.sh")).toBe('rm ~');
    expect(wipes("cat <<'EOF' > x.sh; chmod +x x.sh && ./x.sh\nrm -rf ~\nEOF")).toBe('rm ~');
    expect(wipes("tee /tmp/x.sh <<'EOF'\nrm -rf /\nEOF\n. /tmp/x.sh")).toBe('rm /');
    expect(wipes("cat > /tmp/job <<'EOF'\nrm -rf ~\nEOF\ncrontab /tmp/job")).toBe('rm ~');
    // Run at the next login.
    expect(wipes("cat >> ~/.profile <<'EOF'\nrm -rf ~\nEOF")).toBe('rm ~');
    // Given to a shell through a substitution.
    expect(wipes(`bash -c "$(cat <<'EOF'\nrm -rf /\nEOF\n)"`)).toBe('rm /');
    expect(wipes(`eval "$(cat <<'EOF'\nrm -rf /\nEOF\n)"`)).toBe('rm /');
  });

  it('reads find deleting all it walks from a whole tree: -delete, or -exec rm or chmod on {} with no test narrowing it', () => {
    expect(wipes('find / -delete')).toBe('find /');
    expect(wipes('sudo find ~ -mindepth 1 -delete')).toBe('find ~');
    expect(wipes('find ~ -exec rm -rf {} +')).toBe('find ~');
    expect(wipes('find -L /usr -depth -xdev -exec rm -f {} \\;')).toBe('find /usr');
    expect(wipes('find "$HOME" -maxdepth 1 -execdir sudo rm -r {} +')).toBe('find $HOME');
    expect(wipes('find / -exec chmod 000 {} +')).toBe('find /');
    expect(wipes(`ssh host 'find . -delete'`)).toBe('find .'); // there, from its home
    expect(wipes(`find ~ -mindepth 1 -maxdepth 1 -exec sh -c 'rm -rf "$0"' {} \\;`)).toBe('find ~');
    expect(wipes(`find / -exec bash -c 'sudo chown -R nobody "$@"' _ {} +`)).toBe('find /');
    expect(wipes(`find ~ -exec sh -c 'echo "$0"' {} \\;`)).toBeNull();
    expect(wipes(`find ~ -name '*.bak' -exec sh -c 'rm -f "$1"' _ {} \\;`)).toBeNull();
    // A test selects what goes; a folder below the tree, or an -exec that deletes nothing, takes no tree.
    expect(wipes("find ~ -name '*.tmp' -delete")).toBeNull();
    expect(wipes('find / -type f -name core -delete')).toBeNull();
    expect(wipes('find ~/project/build -delete')).toBeNull();
    expect(wipes('find / -exec ls -ld {} +')).toBeNull();
    expect(wipes('find / -name "*.log" -print')).toBeNull();
    expect(wipes('find ~ -empty -type d -delete')).toBeNull();
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('find . -delete', '~')).toBe('deny');
    expect(inFolder('find -delete', '/')).toBe('deny'); // no starting point: the folder it runs in
    expect(inFolder("find . -name '*.o' -delete", '~')).not.toBe('deny');
    expect(inFolder('find . -name node_modules -prune -exec rm -rf {} +', '~')).not.toBe('deny');
    expect(inFolder('find . -delete', '/tmp/build')).not.toBe('deny');
    expect(inFolder('ssh host find . -delete', '/tmp/build')).toBe('deny'); // the other machine's home
    expect(inFolder('ssh host find usr -delete', '/')).not.toBe('deny');
  });

  it('reads rsync --delete into a whole tree, which empties it of what the source lacks', () => {
    expect(wipes('rsync -a --delete empty/ ~/')).toBe('rsync ~/');
    expect(wipes('sudo rsync -aHAX --delete-before /tmp/empty/ /')).toBe('rsync /');
    expect(wipes('rsync -av --del --exclude .cache src/ "$HOME"')).toBe('rsync $HOME');
    expect(wipes('rsync -a --delete -e ssh host:/srv/ /usr/')).toBe('rsync /usr/');
    // Into a folder below the tree, from the tree, without --delete, or onto another machine: nothing here goes.
    expect(wipes('rsync -a --delete ~/project/ /mnt/backup/project/')).toBeNull();
    expect(wipes('rsync -a --delete ~/ /mnt/backup/')).toBeNull();
    expect(wipes('rsync -a src/ ~/')).toBeNull();
    expect(wipes('rsync -a --delete build/ host:/')).toBeNull();
    expect(wipes('rsync -a --delete --exclude / src/ dest/')).toBeNull(); // / is the exclude's value
  });

  it('reads mv moving a whole tree away, home or a system folder, but not into one', () => {
    expect(wipes('mv ~ /tmp/x')).toBe('mv ~');
    expect(wipes('sudo mv /usr /usr.old')).toBe('mv /usr');
    expect(wipes('mv -t /tmp/attic "$HOME"')).toBe('mv $HOME');
    expect(wipes('mv -f -- /etc /tmp/etc')).toBe('mv /etc');
    expect(wipes('mv /tmp/x ~')).toBeNull(); // into home
    expect(wipes('mv ~/a ~/b')).toBeNull();
    expect(wipes('mv ~/Downloads/* ~/old/')).toBeNull();
    expect(wipes('mv -t ~ /tmp/a /tmp/b')).toBeNull(); // -t names the destination
    expect(wipes('mv -S .bak /tmp/a /tmp/b')).toBeNull();
  });

  it('reads access lists and attributes changed recursively on a whole tree, as chmod -R is', () => {
    expect(wipes('sudo setfacl -R -m u:nobody:--- /')).toBe('setfacl /');
    expect(wipes('setfacl -Rb ~')).toBe('setfacl ~');
    expect(wipes('sudo chattr -R +i /etc')).toBe('chattr /etc');
    expect(wipes('setfacl -R -m u:ana:rwX ~/shared')).toBeNull();
    expect(wipes('sudo chattr -R -i /var/lib/app')).toBeNull();
    expect(wipes('setfacl -m u:ana:rx ~')).toBeNull(); // not recursive
  });

  it('finds rm behind the wrappers and spellings a model may use, and ssh fed a here-string or here-document', () => {
    for (const command of [
      'env rm -rf /', 'command rm -rf /', 'builtin rm -rf /', 'exec rm -rf /', 'nice -n 19 rm -rf /', 'nohup rm -rf / &',
      'timeout 5 rm -rf /', 'stdbuf -o0 rm -rf /', 'ionice -c3 rm -rf /', 'doas rm -rf /', 'pkexec rm -rf /',
      'sudo -E -u root rm -rf /', 'busybox rm -rf /', '/usr/bin/rm -rf /', '\\rm -rf /', 'r""m -rf /', "'rm' -rf /",
      'rm -rf -- /', 'rm --recursive --force /', 'chmod -R 000 /', 'chown -R nobody /',
    ]) {
      expect(wipes(command), command).not.toBeNull();
    }
    expect(wipes("ssh host <<< 'rm -rf ~'")).toBe('rm ~');
    expect(wipes('ssh host <<EOF\nrm -rf ~\nEOF')).toBe('rm ~');
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('pushd / && rm -rf *', '/tmp')).toBe('deny');
    expect(inFolder('(cd ~ && rm -rf .)', '/tmp')).toBe('deny');
    expect(inFolder('rm -rf ./build', '~')).not.toBe('deny');
    expect(inFolder('rm -rf ~/project/node_modules', '~')).not.toBe('deny');
  });

  it('reads home as ~, $HOME, ${HOME} or its own path, quoted or not', () => {
    for (const target of ['~', '~/', '"$HOME"', '${HOME}/*', `${HOME}/`, `'${HOME}'/*`, '~/.*']) {
      expect(wipes(`rm -rf ${target}`), target).not.toBeNull();
    }
    expect(wipes(`rm -rf ${HOME}/Downloads`)).toBeNull();
  });

  it('reads a variable set earlier on the command line, $PWD as the folder it runs in, and ~root or ~user', () => {
    expect(wipes('d=/; rm -rf "$d"')).toBe('rm /');
    expect(wipes('export TARGET=~ && rm -rf "${TARGET}"/*')).toBe('rm ~/*');
    expect(wipes('d="$HOME"\nsudo chown -R nobody $d')).toBe('chown $HOME');
    expect(wipes('d=/usr; cd "$d" && rm -rf *')).toBe('rm *');
    expect(wipes('for d in build / dist; do rm -rf "$d"; done')).toBe('rm {build,/,dist}'); // a loop's variable takes each word
    expect(wipes('for f in ~/*; do rm -rf "$f"; done')).toBe('rm ~/*'); // all of home, as rm -rf ~/* is
    expect(wipes('for f in ~/src/*; do rm -rf "$f"/build; done')).toBeNull();
    expect(wipes('for d in build dist; do rm -rf "$d"; done')).toBeNull();
    expect(wipes('for d in $(ls); do rm -rf "$d"; done')).toBeNull();
    expect(wipes('rm -rf ~root')).toBe('rm ~root');
    expect(wipes('rm -rf ~ana/')).toBe('rm ~ana/'); // the user whose home it is
    expect(wipes('rm -rf ~bob')).toBeNull(); // another user's home is not known here
    expect(wipes('sudo rm -rf /home/$USER')).toBe('rm /home/ana'); // $USER: the name home is under
    expect(wipes('rm -rf "/home/${LOGNAME}/"')).toBe('rm /home/ana/');
    expect(wipes('rm -rf /home/$USER/build')).toBeNull();
    expect(wipes('USER=bob; rm -rf /home/$USER')).toBeNull(); // set on the line, it is that value
    // A value set for the program only, computed when it runs, or replaced later, is not taken.
    expect(wipes('d=/ rm -rf "$d"')).toBeNull(); // $d is expanded before rm's own d=/ applies
    expect(wipes('d=/; d=$(mktemp -d); rm -rf "$d"')).toBeNull();
    expect(wipes('d=/tmp/build; rm -rf "$d"')).toBeNull();
    expect(wipes('out=dist; rm -rf "$out"')).toBeNull();
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('rm -rf "$PWD"', '~')).toBe('deny');
    expect(inFolder('cd / && rm -rf "$PWD"/*', '/tmp')).toBe('deny');
    expect(inFolder('rm -rf "$PWD"', '/tmp/build')).not.toBe('deny');
  });

  it('resolves .. segments: a folder\'s parent can be the root, a system folder or home', () => {
    expect(wipes('rm -rf /tmp/..')).toBe('rm /tmp/..');
    expect(wipes('rm -rf ~/..')).toBe('rm ~/..');
    expect(wipes('rm -rf "$HOME/Downloads/.."')).toBe('rm $HOME/Downloads/..');
    expect(wipes('rm -rf /usr/local/../*')).toBe('rm /usr/local/../*');
    expect(wipes('rm -rf ~/Downloads/old/..')).toBeNull();
  });

  it('reads home in the ${HOME:?} guard and the --recursive option shortened as GNU tools allow', () => {
    expect(wipes('rm -rf "${HOME:?}"/*')).toBe('rm ${HOME:?}/*');
    expect(wipes('rm -rf "${HOME:-/tmp}/"')).toBe('rm ${HOME:-/tmp}/');
    expect(wipes('rm -rf "${HOME:+/tmp/x}"')).toBeNull(); // :+ gives the alternative when HOME is set
    expect(wipes('rm --recu -f /*')).toBe('rm /*');
    expect(wipes('chown --rec ana ~')).toBe('chown ~');
  });

  it('knows the root and the top-level system folders, and nothing below them', () => {
    expect(isWholeTree('/', HOME)).toBe(true);
    expect(isWholeTree('//.//*', HOME)).toBe(true);
    expect(isWholeTree('/usr/', HOME)).toBe(true);
    expect(isWholeTree('/usr/local', HOME)).toBe(false);
    expect(isWholeTree('/tmp', HOME)).toBe(false);
    expect(isWholeTree('.', HOME)).toBe(false);
    expect(isWholeTree('*', HOME)).toBe(false);
  });

  it("knows macOS's top-level system folders, in any case as its file system reads them", () => {
    for (const folder of ['/Users', '/Library/', '/System', '/Applications/*', '/Volumes', '/private', '/users']) {
      expect(isWholeTree(folder, HOME), folder).toBe(true);
    }
    expect(wipes('sudo rm -rf /Library')).toBe('rm /Library');
    expect(wipes('rm -rf /USR')).toBe('rm /USR');
    expect(isWholeTree('/Users/ana/Library/Caches', HOME)).toBe(false);
    expect(isWholeTree('/Library/Caches', HOME)).toBe(false);
    expect(isWholeTree('/Applications/Old.app', HOME)).toBe(false);
  });

  it('reads the words braces make and the trees a glob matches', () => {
    expect(wipes('rm -rf /{usr,etc}')).toBe('rm /{usr,etc}');
    expect(wipes('rm -rf {/,}')).toBe('rm {/,}');
    expect(wipes('rm -rf /u?r')).toBe('rm /u?r');
    expect(wipes('sudo rm -rf /h*')).toBe('rm /h*');
    expect(wipes('chmod -R 000 /[eu]*')).toBe('chmod /[eu]*');
    expect(wipes('rm -rf /home/an?')).toBe('rm /home/an?'); // home
    // Globs and braces below the trees, or a class no glob can match, take none.
    expect(wipes('rm -rf ~/{build,dist}')).toBeNull();
    expect(wipes('rm -rf ~/*.log /tmp/build-*')).toBeNull();
    expect(wipes('rm -rf /tmp/[z-a]')).toBeNull();
    expect(wipes('rm -rf /[z-a]')).toBeNull();
    expect(wipes('rm -rf "${OUT:-a,b}"')).toBeNull();
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('rm -rf b*', '/')).toBe('deny'); // /bin and /boot
    expect(inFolder('rm -rf *.log', '~')).not.toBe('deny');
    // However many wildcards, commas or braces a word has, it is read in about linear time.
    const started = performance.now();
    expect(wipes(`rm -rf /${'*?'.repeat(5_000)}x /{${','.repeat(200_000)} {${'a,'.repeat(20_000)}`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reads every option of every brace list, refusing lists too large to read together', () => {
    const list = (prefix: string, length: number) => Array.from({ length }, (_, i) => `${prefix}${i}`).join(',');
    // A whole tree made by two lists together, past the first list's many options.
    expect(wipes(`rm -rf {,${list('a', 100)}}/{usr,b}`)).toMatch(/^rm \{,a0,/);
    expect(wipes('rm -rf {,x}{/,c}')).toBe('rm {,x}{/,c}');
    expect(wipes(`rm -rf {${list('x', 9_999)},/}`)).toMatch(/^rm \{x0,/);
    expect(wipes('rm -rf {a,b}{/,c}')).toBeNull(); // a/, ac, b/, bc: all below home
    expect(wipes(`rm -rf ~/{${list('x', 9_999)}}`)).toBeNull();
    // The same option many times is read once.
    expect(wipes(`rm -rf /tmp/{${'a,'.repeat(40_000)}a}`)).toBeNull();
    // Two long lists make millions of words: refused at once, instead of each option copying the other list.
    const started = performance.now();
    expect(wipes(`rm -rf {${list('a', 6_000)}}{${list('b', 6_000)}}`)).toMatch(/^rm \(braces too large to read\) \{a0,/);
    expect(wipes(`rm -rf ${'{a,b}'.repeat(20)}`)).toMatch(/^rm \(braces too large to read\)/);
    // A long run of wildcards is read as one.
    expect(wipes(`rm -rf /{${list('x', 100)}}${'*'.repeat(2_000)}`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('takes each line and each command of a script on its own', () => {
    expect(wipes('rm -rf build; ls /')).toBeNull();
    expect(wipes('rm -rf build\nrm -rf /')).toBe('rm /');
    expect(wipes('echo "rm -rf /"')).toBeNull(); // one quoted word: nothing runs rm
  });

  it('reads the text a shell is given to run (bash -c, su -c, eval, a here-string) as commands too', () => {
    expect(wipes('bash -c "rm -rf /"')).toBe('rm /');
    expect(wipes(`sudo sh -c 'rm -rf "$HOME"/*'`)).toBe('rm $HOME/*');
    expect(wipes('bash -lc "cd /tmp && rm -rf ~"')).toBe('rm ~');
    expect(wipes(`su -c 'rm -rf /usr' root`)).toBe('rm /usr');
    expect(wipes(`find /tmp -maxdepth 0 -exec sh -c 'rm -rf ~' \\;`)).toBe('rm ~');
    expect(wipes('eval "rm -rf /"')).toBe('rm /');
    expect(wipes('bash <<< "rm -rf /"')).toBe('rm /');
    expect(wipes(`bash -c 'bash -c "rm -rf /"'`)).toBe('rm /');
    expect(wipes('grep -c "rm -rf /" notes.txt')).toBeNull(); // grep's -c counts: nothing runs the text
    // Programs that hand their text to a shell themselves.
    expect(wipes('watch -n1 "rm -rf /; ls"')).toBe('rm /');
    expect(wipes(`script -q -c 'rm -rf ~; echo done' /dev/null`)).toBe('rm ~');
    expect(wipes('flock /tmp/lock -c "rm -rf /usr; true"')).toBe('rm /usr');
  });

  it("reads a shell's quoted script past its ; or &&", () => {
    expect(wipes('bash -c "cd /tmp; rm -rf /"')).toBe('rm /');
    expect(wipes(`sh -c 'rm -rf ~; echo done'`)).toBe('rm ~');
  });

  it('does not read a quoted argument of another program as commands, even one holding ; or |', () => {
    expect(wipes('grep -E "rm -rf /|mkfs" ~/.bash_history')).toBeNull();
    expect(wipes(`git commit -m 'setup.sh: no more rm -rf ~; a temp folder instead'`)).toBeNull();
    expect(decide('grep -nE "rm -rf (/|~)" ~/.bash_history')).not.toBe('deny');
    // What runs inside double quotes still counts, and a shell's script keeps its cd.
    expect(wipes('echo "$(rm -rf /)"')).toBe('rm /');
    expect(wipes('echo "`rm -rf ~`; done"')).toBe('rm ~');
    expect(decide('bash -c "cd / && rm -rf *"')).toBe('deny');
    expect(decide('bash -c "cd ~/app/build && rm -rf *"')).not.toBe('deny');
    // A quote that never closes (an apostrophe in typed prose) does not make the rest one command.
    expect(typed("Don't forget:\nrm -rf build\ncd ~")).not.toBe('deny');
  });

  it('reads the commands inside a substitution in double quotes each on its own, nested ones too', () => {
    expect(wipes('echo "$(rm -rf /;true)"')).toBe('rm /');
    expect(wipes('echo "$(rm -rf ~&)"')).toBe('rm ~');
    expect(wipes('echo "`rm -rf /;true`"')).toBe('rm /');
    expect(wipes('echo "$(echo $(date); rm -rf /)"')).toBe('rm /');
    expect(wipes('echo "$(cd /; rm -rf *)"')).toBe('rm *');
    expect(wipes('echo "$(cd /tmp/build; rm -rf *)"')).toBeNull();
  });

  it("does not take an apostrophe in a comment or in $'…' for a quote that hides the lines after it", () => {
    expect(wipes("echo hi # don't\nrm -rf /\n# won't")).toBe('rm /');
    expect(wipes("ls # it's here\nrm -rf ~\necho 'done'")).toBe('rm ~');
    expect(wipes("echo $'it\\'s'\nrm -rf /\n# that's all")).toBe('rm /');
    // A # inside a word or a quote is no comment.
    expect(wipes('echo a#b; rm -rf /')).toBe('rm /');
    expect(wipes('grep "# rm -rf /;" notes')).toBeNull();
  });

  it("reads a word in ANSI-C quotes ($'…') as the shell decodes it, the text a shell is given included", () => {
    expect(wipes("bash -c $'rm -rf /'")).toBe('rm /');
    expect(wipes("ssh host $'rm -rf ~'")).toBe('rm ~');
    expect(wipes("bash -c $'\\x72m -rf /'")).toBe('rm /');
    expect(wipes("sh -c $'cd /tmp\\nrm -rf ~'")).toBe('rm ~');
    expect(wipes("rm -rf $'/'")).toBe('rm /');
    // An escaped apostrophe stays in the word, and what the quotes hold is one word.
    expect(wipes("bash -c $'echo it\\'s fine; ls /'")).toBeNull();
    expect(wipes("echo $'rm -rf /'")).toBeNull();
  });

  it('reads the text echo or printf pipes into a shell as commands, and not text piped elsewhere', () => {
    expect(wipes("echo 'rm -rf /' | bash")).toBe('rm /');
    expect(wipes("printf 'rm -rf ~\\n' | sh")).toBe('rm ~');
    expect(wipes("echo 'rm -rf /' | sudo bash")).toBe('rm /');
    expect(wipes("echo -e 'cd /\\nrm -rf *' | /bin/bash")).toBe('rm *');
    expect(wipes('echo "rm -rf ~" | ssh host')).toBe('rm ~');
    expect(wipes("echo 'rm -rf /' | grep rm")).toBeNull();
    expect(wipes("echo 'rm -rf /' > notes.txt")).toBeNull();
    expect(wipes("echo 'rm -rf /tmp/x' | bash")).toBeNull();
    expect(wipes("echo 'a | bash'; echo 'rm -rf /'")).toBeNull();
    expect(wipes("echo 'rm -rf /' || bash")).toBeNull();
  });

  it("fills printf's format with its arguments, as it writes them into a shell or xargs", () => {
    expect(wipes("printf 'rm -rf %s' / | sh")).toBe('rm /'); // read already, as printf's words
    expect(wipes("printf '%s %s %s\\n' rm -rf / | bash")).toBe('rm /'); // read already, as printf's words
    expect(wipes(`printf -v cmd 'rm -rf %s' /; eval "$cmd"`)).toBe('rm /'); // -v sets a variable
    expect(wipes("printf 'rm -rf %s\\n' build dist / | bash")).toBe('rm /'); // the format again for each
    // Past many rounds the arguments left fill one more, as braces: the text stays short.
    const many = Array.from({ length: 100 }, (_, i) => `a${i}`).join(' ');
    expect(wipes(`printf 'rm -rf %s\\n' ${many} / | bash`)).toMatch(/^rm \{a64,.*,\/\}$/);
    const started = performance.now();
    expect(wipes(`printf '${'x'.repeat(50_000)} %s\\n' ${'a '.repeat(50_000)}| bash`)).toBeNull();
    expect(wipes(`printf 'rm -rf /tmp/${'%s'.repeat(100)}\\n' ${'a '.repeat(50_000)}| bash`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(5_000);
    // What the text says, not what runs it.
    expect(wipes("printf 'echo %s\\n' / | bash")).toBeNull();
    expect(wipes("printf '%s\\n' build dist | xargs rm -rf")).toBeNull();
    expect(wipes("printf -v cmd 'rm -rf %s' / | bash")).toBeNull(); // -v: into a variable, nothing written
  });

  it('reads what echo, printf or a find listing all pipe into xargs as the words xargs adds to its program', () => {
    expect(wipes('echo / | xargs rm -rf')).toBe('rm /');
    expect(wipes("printf '%s\\n' ~ | sudo xargs rm -rf")).toBe('rm ~');
    expect(wipes('echo "$HOME" | xargs -I{} rm -rf {}')).toBe('rm $HOME');
    expect(wipes('echo /usr | xargs -n1 chown -R nobody')).toBe('chown /usr');
    expect(wipes('find ~ -print0 | xargs -0 rm -rf')).toBe('rm ~');
    expect(wipes('find / -mindepth 1 -maxdepth 1 | xargs rm -rf')).toBe('rm /');
    // Words that take no tree, a find that selects, xargs not fed by the writer, or an || instead of a pipe.
    expect(wipes('echo build dist | xargs rm -rf')).toBeNull();
    expect(wipes("find . -name '*.pyc' | xargs rm -f")).toBeNull();
    expect(wipes('find ~ -name node_modules -type d -prune | xargs rm -rf')).toBeNull();
    expect(wipes('echo / | xargs ls -ld')).toBeNull();
    expect(wipes('echo / || xargs rm -rf < list')).toBeNull();
    expect(wipes('echo /; cat list | xargs rm -rf')).toBeNull();
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('find . | xargs rm -rf', '~')).toBe('deny');
    expect(inFolder('find . | xargs rm -rf', '/tmp/build')).not.toBe('deny');
    expect(inFolder('ls -A | xargs rm -rf', '~')).toBe('deny'); // all in home
    expect(inFolder('cd / && ls | xargs sudo rm -rf', '/tmp')).toBe('deny');
    expect(inFolder('ls | xargs rm -rf', '/tmp/build')).not.toBe('deny');
    expect(inFolder('ls / | xargs rm -rf', '/tmp/build')).not.toBe('deny'); // names of /, removed here
    expect(inFolder('ls | grep -v keep | xargs rm -rf', '/tmp/build')).not.toBe('deny');
  });

  it("reads past a here-document's body, whose apostrophes open no quote, and still reads the body's lines", () => {
    expect(wipes("cat > notes.txt <<'EOF'\ndon't\nEOF\nrm -rf /\necho 'done' '")).toBe('rm /');
    expect(wipes("cat <<-EOF; rm -rf ~\n\tit's\n\tEOF\necho 'ok' '")).toBe('rm ~');
    expect(wipes('cat <<EOF\n$(rm -rf /)\nEOF')).toBe('rm /');
    expect(wipes("cat <<'EOF' > a.txt\nlet's go\nEOF\nls 'x'")).toBeNull();
    expect(wipes("bash <<< 'cd /; rm -rf *'")).toBe('rm *');
  });

  it('reads the command ssh runs on the other machine as shell text, there in its home', () => {
    expect(wipes(`ssh user@host 'rm -rf /'`)).toBe('rm /');
    expect(wipes('ssh host rm -rf --no-preserve-root /')).toBe('rm /');
    expect(wipes('ssh host "cd /tmp && rm -rf ~"')).toBe('rm ~');
    expect(wipes(`ssh host 'rm -rf "$HOME"/*'`)).toBe('rm $HOME/*');
    expect(wipes(`ssh host 'rm -rf /*; echo done'`)).toBe('rm /*');
    expect(wipes(`ssh host 'rm -rf *'`)).toBe('rm *'); // the command starts in the remote home (or /)
    expect(wipes(`ssh host 'sudo chown -R nobody /usr'`)).toBe('chown /usr');
    expect(wipes(`ssh -tt host 'bash -c "rm -rf /"'`)).toBe('rm /');
    expect(wipes(`bash -c "ssh host 'rm -rf /'"`)).toBe('rm /');
    expect(wipes(`sudo /usr/bin/ssh host 'rm -rf /etc'`)).toBe('rm /etc');
    expect(wipes(`ssh -- host 'rm -rf /'`)).toBe('rm /');
    expect(wipes(`ssh host -- 'rm -rf /'`)).toBe('rm /');
    expect(wipes(`slogin -p 22 host 'rm -rf ~'`)).toBe('rm ~'); // ssh under its other name
  });

  it('reads the command other remote shells run there: autossh, rsh and mosh, quoted or piped in', () => {
    expect(wipes(`autossh -M 0 host 'rm -rf /'`)).toBe('rm /'); // -M takes a port: the host comes after it
    expect(wipes(`autossh -M 20000 -f -N -o 'RemoteCommand=rm -rf ~' host`)).toBe('rm ~');
    expect(wipes(`rsh host 'rm -rf /'`)).toBe('rm /');
    expect(wipes(`rsh -l root host 'cd / && rm -rf *'`)).toBe('rm *');
    expect(wipes(`mosh host 'rm -rf ~'`)).toBe('rm ~');
    expect(wipes(`mosh --ssh 'ssh -p 2222' host -- sh -c 'rm -rf /'`)).toBe('rm /');
    expect(wipes(`mosh --ssh='ssh -p 2222' -p 60001 host 'rm -rf /usr'`)).toBe('rm /usr');
    expect(wipes("echo 'rm -rf ~' | rsh host")).toBe('rm ~');
    // Nothing of a whole tree there, or a value of an option taken for the command.
    expect(wipes(`autossh -M 0 host 'rm -rf /tmp/x'`)).toBeNull();
    expect(wipes(`mosh --ssh 'ssh -i rm' host`)).toBeNull();
    expect(wipes('rsh -l rm host ls /')).toBeNull();
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('mosh host -- rm -rf usr', '/')).not.toBe('deny'); // a relative target is the other machine's
  });

  it("finds ssh's host and remote command past its options, those with a value too", () => {
    for (const options of [
      '-p 22', '-p2222', '-i ~/.ssh/id_ed25519', '-o StrictHostKeyChecking=no', '-oBatchMode=yes', '-l root', '-J jump.example',
      '-F ~/.ssh/other_config', '-E /tmp/ssh.log', '-L 8080:localhost:80', '-R 9000:localhost:9000', '-D 1080', '-b 10.0.0.2',
      '-c aes256-ctr', '-m hmac-sha2-256', '-S /tmp/ctl', '-W localhost:22', '-w 0:1', '-e none', '-Q cipher', '-B eth0',
      '-O check', '-I pkcs11.so', '-4 -A -C -q -t -x -v', '-vp 22', '-tti key', '-P tag',
    ]) {
      expect(wipes(`ssh ${options} host 'rm -rf /'`), options).toBe('rm /');
      expect(wipes(`ssh host ${options} 'rm -rf /'`), `${options} after the host`).toBe('rm /'); // ssh reads options after it too
      expect(wipes(`ssh ${options} host 'rm -rf /tmp/x'`), options).toBeNull();
    }
    // A value that looks like a command is the option's, not the remote command.
    expect(wipes('ssh -i rm host ls /')).toBeNull();
    expect(wipes(`ssh -o 'ProxyCommand ssh -W %h:%p bastion' host uptime`)).toBeNull();
    // The remote command can be given as an option, too.
    expect(wipes(`ssh -o 'RemoteCommand=rm -rf /' host`)).toBe('rm /');
    expect(wipes(`ssh -o "RemoteCommand rm -rf ~" -t host`)).toBe('rm ~');
  });

  it('reads the commands ssh has a shell run on this machine (ProxyCommand, LocalCommand) from the folder here', () => {
    expect(wipes(`ssh -o 'ProxyCommand=rm -rf ~' host`)).toBe('rm ~');
    expect(wipes(`ssh -o "ProxyCommand sh -c 'rm -rf /'" host uptime`)).toBe('rm /');
    expect(wipes(`ssh -oPermitLocalCommand=yes -o 'LocalCommand rm -rf /usr' host`)).toBe('rm /usr');
    expect(wipes(`ssh -o 'ProxyCommand ssh -W %h:%p bastion' host uptime`)).toBeNull();
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder(`ssh -o 'ProxyCommand=rm -rf *' host`, '/')).toBe('deny'); // run here, in /
    expect(inFolder(`ssh -o 'ProxyCommand=rm -rf *' host`, '/tmp/x')).not.toBe('deny');
  });

  it('lets ssh commands through that take no whole tree on the other machine', () => {
    expect(wipes('ssh host ls /')).toBeNull();
    expect(wipes(`ssh -p 2222 host 'rm -rf /tmp/x'`)).toBeNull();
    expect(wipes('ssh host "grep -r foo /"')).toBeNull();
    expect(wipes(`ssh host 'cd /srv/app/build && rm -rf *'`)).toBeNull();
    expect(wipes(`ssh host "grep -c 'rm -rf /' notes.txt"`)).toBeNull();
    expect(wipes('ssh host rm -rf build dist')).toBeNull();
    expect(wipes('ssh -L 8080:localhost:80 host')).toBeNull();
    expect(wipes('ssh-keygen -R host')).toBeNull();
    // Relative targets are the other machine's, not read from the folder ssh is run in here.
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('ssh host rm -rf usr', '/')).not.toBe('deny');
    expect(inFolder('cd / && ssh host rm -rf etc', '~')).not.toBe('deny');
    expect(inFolder(`ssh host 'rm -rf .'`, '/tmp')).toBe('deny'); // the remote home
    // A command that merely mentions ssh still has its own targets read.
    expect(wipes('find . -name ssh -exec rm -rf / \\;')).toBe('rm /');
    // ...its relative ones too, from the folder here: only a command ssh runs there is read from the remote home.
    expect(inFolder('find . -name ssh -exec rm -rf * \\;', '/')).toBe('deny');
    expect(inFolder('sudo -u ssh rm -rf *', '/')).toBe('deny');
    expect(inFolder('sudo -u ssh ssh host rm -rf usr', '/')).not.toBe('deny');
  });

  it('takes a redirection written against a target apart from it, as the shell does', () => {
    expect(wipes('rm -rf ~>/dev/null')).toBe('rm ~');
    expect(wipes('rm -rf /usr 2>>/tmp/log')).toBe('rm /usr');
    expect(wipes('sudo rm -rf /<input')).toBe('rm /');
    // The file a redirection writes is no target, quoted or not, and a quoted > is part of its word.
    expect(wipes('rm -rf build > /')).toBeNull();
    expect(wipes('rm -rf build 2> "$HOME"')).toBeNull();
    expect(wipes("rm -rf '/>x'")).toBeNull();
    expect(wipes("bash <<< 'rm -rf /' > /tmp/out")).toBe('rm /'); // a here-string stays the shell's
  });

  it('joins a line continued with a backslash, as the shell does', () => {
    expect(wipes('rm -rf \\\n  ~/')).toBe('rm ~/');
    expect(wipes('rm -rf build \\\n  "$HOME"')).toBe('rm $HOME');
  });
  it("reads env's split string (-S) as the program and the words it runs", () => {
    expect(wipes(`env -S 'rm -rf /'`)).toBe('rm /');
    expect(wipes(`env -S"rm -rf /"`)).toBe('rm /');
    expect(wipes(`env -iS 'rm -rf ~'`)).toBe('rm ~');
    expect(wipes(`env --split-string='rm -rf /usr'`)).toBe('rm /usr');
    expect(wipes(`env --split 'rm -rf /usr'`)).toBe('rm /usr');
    expect(wipes(`sudo env -u X -S 'bash -c "rm -rf /"'`)).toBe('rm /');
    expect(wipes(`env -S 'rm\\_-rf\\_/'`)).toBe('rm /'); // \_ outside quotes cuts words
    // env's other options and assignments before the program were read already.
    expect(wipes('env -i rm -rf /')).toBe('rm /');
    expect(wipes('env -i PATH=/bin VAR=x rm -rf /')).toBe('rm /');
    expect(wipes(`env -S 'ls /'`)).toBeNull();
    expect(wipes(`env -S 'rm -rf build' /tmp/x`)).toBeNull();
    // -C runs the program in another folder, where its relative operands are.
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('env -C / rm -rf *', '/tmp/build')).toBe('deny');
    expect(inFolder('env --chdir=/ sudo rm -rf *', '/tmp/build')).toBe('deny');
    expect(inFolder(`env -C ~ -S 'rm -rf .'`, '/tmp/build')).toBe('deny');
    expect(inFolder('env -C /tmp/build rm -rf *', '~')).not.toBe('deny');
  });

  it('reads the positional parameters set on the line ($1, ${2}, $@), moved by shift, and given to sh -c', () => {
    expect(wipes('set -- / ; rm -rf "$@"')).toBe('rm /');
    expect(wipes('set -- /; rm -rf "$1"')).toBe('rm /');
    expect(wipes('set / ; rm -rf $1')).toBe('rm /');
    expect(wipes('set -e -- build ~; rm -rf "${2}"')).toBe('rm ~');
    expect(wipes('set -- build /usr; shift; rm -rf "$1"')).toBe('rm /usr');
    expect(wipes('set -- / ~; for d; do rm -rf "$d"; done')).toBe('rm {/,~}'); // a for with no `in` walks $@
    // A function's body, read where it is defined, does not change the line's own parameters.
    expect(wipes('set -- /; f(){ shift; }; rm -rf "$1"')).toBe('rm /');
    expect(wipes('set -- /; f(){ set -- build; }; f; rm -rf "$1"')).toBe('rm /');
    // With no parameters, or none known, the loop may not run: its variable keeps what it held.
    expect(wipes('d=/; for d; do :; done; rm -rf "$d"')).toBe('rm /');
    expect(wipes('d=/; set --; for d; do :; done; rm -rf "$d"')).toBe('rm /');
    expect(wipes(`sh -c 'rm -rf "$1"' sh /`)).toBe('rm /');
    expect(wipes(`sh -c 'rm -rf "$0"' /`)).toBe('rm /'); // the word after the text is $0
    expect(wipes(`bash -c 'f(){ rm -rf "\${0}"; }; f x' ~`)).toBe('rm ~');
    expect(wipes(`sh -c 'rm -rf "$0"' build`)).toBeNull();
    expect(wipes(`sh -c 'rm -rf "$1"' "$name" /`)).toBe('rm /'); // a $0 that cannot be told leaves $1 known
    // "$@" alone is the parameters' words, options among them.
    expect(wipes('set -- -rf /; rm "$@"')).toBe('rm /');
    expect(wipes('f(){ rm $*; }; f -r -f ~')).toBe('rm ~');
    // Parameters that take no tree, are gone, or cannot be told.
    expect(wipes('set -- a b; echo $1')).toBeNull();
    expect(wipes('set -- /; echo "$1"; ls $1')).toBeNull();
    expect(wipes('set -- build dist; rm -rf "$@"')).toBeNull();
    expect(wipes('set -- /; shift; rm -rf "$1"')).toBeNull();
    expect(wipes('set -o pipefail; rm -rf "$1"')).toBeNull();
    expect(wipes('set -- $(ls); rm -rf "$1"')).toBeNull();
    expect(wipes('set -- /tmp/a /tmp/b; for d; do rm -rf "$d"; done')).toBeNull();
    expect(wipes(`bash -c 'ls "$1"' _ /`)).toBeNull();
    expect(wipes(`find . -name '*.tmp' | xargs -n1 sh -c 'rm -rf ~/"$1"' _`)).toBeNull(); // xargs adds $1
  });

  it('reads a function defined on the line at each call, with its arguments as $1, $2… and $@', () => {
    expect(wipes('f(){ rm -rf "$1"; }; f /')).toBe('rm /');
    expect(wipes('function f { rm -rf /; }; f')).toBe('rm /'); // read already where it is defined
    expect(wipes('function f() { rm -rf "$@"; }; f build ~')).toBe('rm ~');
    expect(wipes('f() {\n  d="$1"\n  sudo rm -rf "$d"\n}\nf /usr')).toBe('rm /usr');
    expect(wipes('g(){ rm -rf "$1"; }; f(){ g "$1"; }; f ~')).toBe('rm ~');
    expect(wipes('f(){ rm -rf "/$1"; }; f')).toBe('rm /'); // called with none, $1 is empty
    expect(wipes('f(){ rm -rf "$@"; }; f "$HOME"')).toBe('rm $HOME');
    // eval runs its words in the same shell, where the function is defined.
    expect(wipes('f(){ rm -rf "$1"; }; eval "f /"')).toBe('rm /');
    expect(wipes('f(){ rm -rf "$1"; }; eval f ~')).toBe('rm ~');
    expect(wipes('f(){ rm -rf "$1"; }; eval "f build"')).toBeNull();
    expect(wipes(`d=/; if false; then eval 'd=/tmp/x'; fi; rm -rf "$d"`)).toBe('rm /'); // what it sets does not hide the value
    // Bodies that take no tree with the arguments given.
    expect(wipes('f(){ ls "$1"; }; f /')).toBeNull();
    expect(wipes('f(){ rm -rf "$1"; }; f build')).toBeNull();
    expect(wipes('f(){ f "$1"; }; f /')).toBeNull(); // calls itself: read a few calls deep
    expect(wipes('f(){ rm -rf "$1"; f "$2"; }; f a /')).toBe('rm /'); // and each call with its own arguments
    // A chain of functions, each calling the next, is read to its end, past the nesting of shell texts.
    const chain = (links: number, last: string) =>
      `${Array.from({ length: links }, (_, i) => `f${i}(){ f${i + 1} "$1"; }`).join('; ')}; f${links}(){ ${last} "$1"; }; f0 /`;
    expect(wipes(chain(6, 'rm -rf'))).toBe('rm /');
    expect(wipes(chain(30, 'rm -rf'))).toBe('rm /');
    expect(wipes(chain(30, 'ls'))).toBeNull();
    expect(wipes(chain(100, 'ls'))).toMatch(/too deep to be read/); // deeper than any real line: it may hide anything
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('f(){ rm -rf "$1"; }; f', '~')).not.toBe('deny'); // rm -rf "" removes nothing
    expect(inFolder('rm -rf ""', '~')).not.toBe('deny');
  });

  it('reads a variable an assignment that may not run sets as either value: its own or the one before', () => {
    expect(wipes('d=/; if false; then d=/tmp/x; fi; rm -rf "$d"')).toBe('rm {/,/tmp/x}');
    expect(wipes('d=/; while false; do d=/tmp/x; done; rm -rf "$d"')).toBe('rm {/,/tmp/x}');
    expect(wipes('d=/; if false; then printf -v d %s /tmp/x; fi; rm -rf "$d"')).toBe('rm {/,/tmp/x}');
    expect(wipes('d=/; f(){ d=/tmp/x; }; rm -rf "$d"')).toBe('rm {/,/tmp/x}'); // f is never called
    expect(wipes('d=/; f(){ echo; d="$1"; }; rm -rf "$d"')).toBe('rm /');
    expect(wipes('d=/; f(){ local d=/tmp/x; }; f; rm -rf "$d"')).toBe('rm {/,/tmp/x}'); // local ends with f
    expect(wipes('d=/; f(){ d=/tmp/x; }; f; rm -rf "$d"')).toBe('rm {/,/tmp/x}'); // read where defined, then called
    // Either value taking no tree, or a variable unknown before: as any assignment.
    expect(wipes('d=build; if [ -n "$X" ]; then d=dist; fi; rm -rf "$d"')).toBeNull();
    expect(wipes('if true; then d=/; fi; rm -rf "$d"')).toBe('rm /');
    expect(wipes('f(){ d="$1"; rm -rf "$d"; }; f /usr')).toBe('rm /usr');
  });

  it('follows a cd in a function to the commands after its call, which run where it went', () => {
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder('go(){ cd "$1"; }; go /; rm -rf *', '/tmp/build')).toBe('deny');
    expect(inFolder('up(){ cd ..; }; cd /tmp; up; rm -rf *', '/tmp/build')).toBe('deny');
    expect(inFolder('go(){ cd "$1"; }; go /tmp/x; rm -rf *', '/tmp/build')).not.toBe('deny');
  });

  it('reads an alias defined on the line where a command starts with it, its other words after its text', () => {
    expect(wipes("alias x='rm -rf /'; x")).toBe('rm /');
    expect(wipes("alias x='sudo rm -rf'\nx ~")).toBe('rm ~');
    expect(wipes("alias r='rm -rf'; alias w='r /usr'; w")).toBe('rm /usr'); // one alias using another
    expect(wipes("alias ll='ls -la'; ll /")).toBeNull();
    expect(wipes("alias ls='ls -F'; ls /")).toBeNull(); // not expanded again in its own text, as the shell does
    expect(wipes("alias ls='rm -rf'; ls /")).toBe('rm /'); // an alias named as its own text's program is still expanded once
    expect(wipes("alias x='rm -rf /'")).toBeNull(); // defined, never used
    // bash -c expands no alias: what an alias's text would set may never be set, and the rest is read as it was.
    expect(wipes(`d=/; alias x='d=/tmp/x'; x; rm -rf "$d"`)).toBe('rm /');
    expect(wipes(`d=/; alias x='d=$(pwd)'; x; rm -rf "$d"`)).toBe('rm /');
    expect(wipes(`f(){ rm -rf "$1"; }; alias x='f(){ :; }'; x; f /`)).toBe('rm /');
  });

  it("reads env's options in time linear in the words: each env was looked for from the start, its options to the end", () => {
    const started = performance.now();
    expect(wipes('env -S '.repeat(3_000))).toBeNull();
    expect(wipes(`env -S '${'env -S '.repeat(2_000)}rm -rf /'`)).toBe('rm /');
    expect(performance.now() - started).toBeLessThan(1_000); // 3.8 s and 1.6 s when quadratic
  });

  it('reads bodies called and scripts run over and over in bounded time, refusing what is too much to read', () => {
    const started = performance.now();
    expect(wipes(`f(){ ${'echo "$1"; '.repeat(1000)} }; ${'f a; '.repeat(50)}`)).toMatch(/^f .*too often/);
    expect(wipes(`f(){ ${'echo "$1"; '.repeat(100)} }; ${'f a; '.repeat(50)}`)).toBeNull();
    expect(wipes(`echo '${'ls; '.repeat(5_000)}' > x.sh; ${'bash x.sh; '.repeat(20)}`)).toMatch(/too often/);
    // Copies of copies would double the text at each; a file appended to over and over.
    expect(wipes(`echo 'ls /tmp' > x; ${'cat x >> y; cat y >> x; '.repeat(5_000)}bash x`)).toMatch(/too often/);
    expect(wipes(`echo 'rm -rf build' > x.sh; ${"echo 'ls /tmp' >> x.sh; ".repeat(2_000)}bash x.sh`)).toBeNull();
    // Bodies that call others many times, aliases made of aliases: each reading counts, however short.
    expect(wipes(`f(){ g;g;g;g;g;g;g;g; }; g(){ h;h;h;h;h;h;h;h; }; h(){ :; }; ${'f; '.repeat(5_000)}`)).toMatch(/too often/);
    expect(wipes(`alias a='b;b;b;b;b;b;b;b' b='c;c;c;c;c;c;c;c' c=':'; ${'a; '.repeat(5_000)}`)).toMatch(/too often/);
    expect(wipes(`mk(){ mkdir -p "$1"; }; ${Array.from({ length: 2_000 }, (_, i) => `mk d${i}; `).join('')}`)).toBeNull();
    // "$@" of thousands of parameters, used thousands of times: millions of words (it took over 10 s).
    expect(wipes(`set -- ${'x '.repeat(3_000)}; echo ${'"$@" '.repeat(3_000)}`)).toMatch(/too often/);
    expect(wipes(`set -- ${'x '.repeat(3_000)}; echo ${'$* '.repeat(3_000)}`)).toMatch(/too often/);
    expect(wipes(`set -- ${'x '.repeat(300)}; ${'echo "$@"; '.repeat(30)}`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reads what echo or printf writes to a file the same line runs, or to a start-up file a shell or cron runs', () => {
    expect(wipes("echo 'rm -rf /' > x.sh && bash x.sh")).toBe('rm /');
    expect(wipes("printf 'rm -rf /\\n' > x.sh; sh x.sh")).toBe('rm /');
    expect(wipes("echo 'rm -rf ~' > /tmp/x.sh; chmod +x /tmp/x.sh; /tmp/x.sh")).toBe('rm ~');
    expect(wipes("echo 'rm -rf /' > x.sh; . ./x.sh")).toBe('rm /');
    expect(wipes("echo 'rm -rf /' > x.sh; bash < x.sh")).toBe('rm /');
    expect(wipes("echo 'rm -rf /' > x.sh; cat x.sh | bash")).toBe('rm /'); // read already: a pipe into a shell
    expect(wipes("echo 'rm -rf /' | tee x.sh >/dev/null; sudo bash x.sh")).toBe('rm /');
    expect(wipes("echo 'rm -rf /' &> x.sh; bash x.sh")).toBe('rm /');
    expect(wipes("echo 'rm -rf /' > a.sh; cat a.sh > b.sh; bash b.sh")).toBe('rm /');
    expect(wipes("echo 'rm -rf ~' >> ~/.bashrc")).toBe('rm ~');
    expect(wipes("echo 'rm -rf /' | sudo tee -a /etc/profile.d/x.sh")).toBe('rm /');
    expect(wipes("echo '0 * * * * rm -rf ~' > job; crontab job")).toBe('rm ~');
    expect(wipes('echo rm -rf / >> ~/.bashrc')).toBe('rm /'); // unquoted, its words were read already
    expect(wipes(`echo 'rm -rf /' > "my script.sh"; bash "my script.sh"`)).toBe('rm /');
    // printf's format filled with its arguments, and echo -n's text going on on the line appended after it.
    expect(wipes("printf 'rm -rf %s\\n' / > x.sh; bash x.sh")).toBe('rm /');
    expect(wipes("printf 'rm -rf ' > x; printf '/' >> x; sh x")).toBe('rm /');
    expect(wipes("echo -n 'rm -rf ' > x; echo / >> x; bash x")).toBe('rm /');
    expect(wipes("echo 'rm -rf' > x; echo / >> x; bash x")).toBeNull(); // two lines: rm, then /
    // A here-string written out by cat or tee, as a here-document is.
    expect(wipes("cat > x.sh <<< 'rm -rf /'; bash x.sh")).toBe('rm /');
    expect(wipes("tee -a ~/.zshrc <<< 'rm -rf ~'")).toBe('rm ~');
    expect(wipes("cat <<< 'rm -rf /' | bash")).toBe('rm /');
    // Text only printed, written to a file nothing runs, only read, or a script that takes no tree.
    expect(wipes('echo "never run rm -rf /"')).toBeNull();
    expect(wipes("echo 'never run rm -rf /' > notes.txt; cat notes.txt")).toBeNull();
    expect(wipes("echo 'rm -rf /' > x.sh; chmod +x x.sh; grep -n rm x.sh")).toBeNull();
    expect(wipes("echo 'rm -rf build' > x.sh; bash x.sh")).toBeNull();
    expect(wipes("echo 'rm -rf /' > x.sh; bash y.sh")).toBeNull();
    expect(wipes("echo 'export PATH=$HOME/bin:$PATH' >> ~/.bashrc")).toBeNull();
    expect(wipes("cat <<< 'rm -rf /'")).toBeNull();
    const inFolder = (command: string, cwd: string) =>
      policy.evaluate({ toolName: 'execute_command', args: { command, cwd }, trustedTool: true, modelStatus: 'CONTINUE' }).decision;
    expect(inFolder("echo 'rm -rf *' > x.sh; cd / && bash x.sh", '/tmp')).toBe('deny'); // run where the line has gone
    expect(inFolder("echo 'rm -rf *' > x.sh; bash x.sh", '/tmp/build')).not.toBe('deny');
  });

  describe('subshells', () => {
    const HOME_U = '/home/u';
    const atHome = (text: string) => wholeTreeCommand(text, HOME_U, HOME_U);

    it('does not carry a cd, a variable, a function, an alias or parameters out of a subshell', () => {
      expect(atHome('(cd /tmp/x); rm -rf *')).toBe('rm *');
      expect(atHome('(cd /tmp/x) && rm -rf *')).toBe('rm *');
      expect(atHome('x=$(cd /tmp/x; pwd); rm -rf *')).toBe('rm *'); // a substitution is a subshell
      expect(atHome('echo "$(cd /tmp/x)"; rm -rf *')).toBe('rm *');
      expect(atHome('echo "$(rm -rf *)"; cd /tmp/x')).toBe('rm *'); // run before the commands after it
      expect(atHome('echo `cd /tmp/x`; rm -rf *')).toBe('rm *');
      expect(atHome('((cd /tmp/x)); rm -rf *')).toBe('rm *');
      expect(atHome('d=/; (d=/tmp/x); rm -rf "$d"')).toBe('rm /');
      expect(atHome('f(){ rm -rf "$1"; }; (f(){ :; }); f /')).toBe('rm /');
      expect(atHome("alias x='rm -rf'; (alias x=ls); x /")).toBe('rm /');
      expect(atHome('set -- /; (set -- /tmp/x); rm -rf "$1"')).toBe('rm /');
      expect(atHome('(pushd /tmp/x); rm -rf *')).toBe('rm *');
      // A subshell left open (a syntax error) leaves nothing set either.
      expect(atHome('(cd /tmp/x; rm -rf build')).toBeNull();
    });

    it('runs each command of a pipeline and one in the background in a subshell of its own', () => {
      expect(atHome('cd /tmp/x | true; rm -rf *')).toBe('rm *');
      expect(atHome('true | cd /tmp/x; rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x |& cat; rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x & rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x 2>&1 & rm -rf *')).toBe('rm *');
      expect(atHome('{ cd /tmp/x; } | true; rm -rf *')).toBe('rm *');
      expect(atHome('{ cd /tmp/x; } & rm -rf *')).toBe('rm *');
      expect(atHome('true | { cd /tmp/x; }; rm -rf *')).toBe('rm *');
      expect(atHome('if true; then cd /tmp/x; fi | cat; rm -rf *')).toBe('rm *');
      expect(atHome('d=/; d=/tmp/x | true; rm -rf "$d"')).toBe('rm /');
      // A & puts the whole and-or list before it in the background, not only its last command.
      expect(atHome('cd /tmp/x && true & rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x || true & rm -rf *')).toBe('rm *');
      expect(atHome('ls; cd /tmp/x && true & rm -rf *')).toBe('rm *');
      expect(atHome('(cd /tmp/x) && cd /tmp/x && true & rm -rf *')).toBe('rm *');
      expect(atHome('while true; do cd /tmp/x; done & rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x &\nrm -rf *')).toBe('rm *');
    });

    it("reads a pipeline's last command as run by the shell itself too, where lastpipe, zsh or ksh may do so", () => {
      const inTmp = (text: string) => wholeTreeCommand(`cd /tmp/x; ${text}`, HOME_U, HOME_U);
      expect(inTmp('shopt -s lastpipe; true | cd /; rm -rf *')).toBe('rm *');
      expect(inTmp('shopt -s lastpipe; d=/tmp/x; true | d=/; rm -rf "$d"')).toBe('rm /');
      expect(inTmp("zsh -c 'true | cd /; rm -rf *'")).toBe('rm *');
      expect(inTmp("ksh -c 'true | { cd /; }; rm -rf *'")).toBe('rm *');
      // However the words spell them: quotes, escapes, ANSI-C quoting, variables.
      expect(inTmp("shopt -s last''pipe; true | cd /; rm -rf *")).toBe('rm *');
      expect(inTmp('shopt -s l\\astpipe; true | cd /; rm -rf *')).toBe('rm *');
      expect(inTmp("shopt -s $'\\x6castpipe'; true | cd /; rm -rf *")).toBe('rm *');
      expect(inTmp("z''sh -c 'true | cd /; rm -rf *'")).toBe('rm *');
      expect(inTmp("s=z; \"${s}sh\" -c 'true | cd /; rm -rf *'")).toBe('rm *');
      // Where it runs in a subshell whichever way it is read, or the other folder is harmless: let through.
      expect(inTmp('true | cd /; rm -rf *')).toBeNull();
      expect(inTmp('shopt -s lastpipe; cd / | true; rm -rf *')).toBeNull();
      expect(inTmp('shopt -s lastpipe; true | cd /tmp/y; rm -rf *')).toBeNull();
    });

    it('reads a function whose body is a subshell at each call, and leaves its cd in it', () => {
      expect(atHome('f() ( rm -rf "$1" ); f /')).toBe('rm /');
      expect(atHome('f()(rm -rf "$1"); f ~')).toBe('rm ~');
      expect(atHome('function f ( rm -rf "$1" ); f /')).toBe('rm /');
      expect(atHome('f() ( cd /tmp/x ); f; rm -rf *')).toBe('rm *');
      expect(atHome('f() { cd /tmp/x; }; rm -rf *')).toBe('rm *'); // defined, never called
      expect(atHome('f() { pushd /tmp/x; }; f; popd; rm -rf *')).toBe('rm *'); // its pushd is the caller's
      expect(atHome('f() ( pushd /tmp/x ); f; popd; rm -rf *')).toBe('rm *'); // in a subshell: popd has none, and fails
      expect(atHome('f() ( rm -rf "$1" ); f /tmp/build')).toBeNull();
      // A substitution in a body's first command is no body in parentheses.
      expect(atHome('f() { x="$(date)"; rm -rf "$1"; }; f /')).toBe('rm /');
      expect(atHome('f() { rm -rf "$(pwd)/build"; }; f')).toBeNull();
    });

    it('reads a case branch, whose pattern ends in ), as no subshell', () => {
      expect(atHome('(case a in a) cd /tmp/x;; esac); rm -rf *')).toBe('rm *');
      // After esac the shell may be where any branch left it, or where it was when no pattern matched.
      expect(atHome('case a in (a|b) cd /tmp/x;; esac; rm -rf *')).toBe('rm *');
      expect(atHome('case a in a) true;; *) cd /tmp/x;; esac; rm -rf *')).toBe('rm *');
      // Patterns are not matched, a `*)` neither: no branch may be taken.
      expect(atHome('case a in (a|b) cd /tmp/x;; *) cd /tmp/y;; esac; rm -rf *')).toBe('rm *');
      expect(atHome('case a in (a|b) cd /tmp/x && rm -rf *;; esac')).toBeNull();
    });

    it('reads a ( or ) inside ${…} as part of the word, not a subshell', () => {
      const inTmp = (text: string) => wholeTreeCommand(text, '/home/u', '/tmp/w');
      expect(inTmp('echo ${x:-(}; cd /; echo ${x:-)}; rm -rf *')).toBe('rm *');
      expect(inTmp('echo ${x/(/}; cd /; echo ${x/)/}; rm -rf *')).toBe('rm *');
      expect(inTmp('cd /; (echo ${x:-)}; cd /tmp/x); rm -rf *')).toBe('rm *');
      expect(inTmp('cd /; echo "$(echo ${x:-)}; cd /tmp/x)"; rm -rf *')).toBe('rm *');
      // A substitution inside one is still a subshell, and still read.
      expect(inTmp('cd /; echo ${x:-$(cd /tmp/x)}; rm -rf *')).toBe('rm *');
      expect(inTmp('echo ${x:-$(rm -rf /)}')).toBe('rm /');
      expect(inTmp('echo ${x:-\\$(}; cd /; echo ${x:-)}; rm -rf *')).toBe('rm *'); // an escaped $ starts none
      expect(inTmp('cd /; echo $${; (cd /tmp/x); rm -rf *')).toBe('rm *'); // $$ and a {: no ${…}
      expect(inTmp('echo ${x:-(}; cd /tmp/x; rm -rf *')).toBeNull();
    });

    it('still reads what was set before a subshell inside it, and groups and && as the same shell', () => {
      expect(atHome('cd /tmp/x; (rm -rf *)')).toBeNull();
      expect(atHome('(cd /tmp/x && rm -rf *)')).toBeNull();
      expect(atHome('(cd /tmp/x; rm -rf *)')).toBeNull();
      expect(atHome('cd /tmp/x && rm -rf *')).toBeNull();
      expect(atHome('{ cd /tmp/x; }; rm -rf *')).toBeNull();
      expect(atHome('mkdir -p build && cd build && rm -rf *')).toBeNull();
      expect(atHome('cd /tmp/x || exit 1; rm -rf *')).toBeNull();
      expect(atHome('cd /tmp/x; ls | grep a; rm -rf *')).toBeNull();
      expect(atHome('cd /tmp/x 2>&1; rm -rf *')).toBeNull();
      expect(atHome('cd /tmp/x && rm -rf * &')).toBeNull(); // in the background together
      expect(atHome('cd /tmp/x; { rm -rf *; } & wait')).toBeNull();
      expect(atHome('cd /tmp/x; sleep 1 & rm -rf *')).toBeNull();
      expect(atHome('d=/; (rm -rf "$d")')).toBe('rm /');
      expect(atHome('f(){ rm -rf "$1"; }; (f /)')).toBe('rm /');
      expect(atHome('rm -rf "$1"')).toBeNull();
      expect(atHome('cleanup(){ rm -rf "$1"; }; cleanup /tmp/build')).toBeNull();
    });

    it('reads 20,000 subshells, nested or one after another, in linear time', () => {
      const started = performance.now();
      expect(atHome(`${'('.repeat(20_000)}cd /tmp/x${')'.repeat(20_000)}; rm -rf *`)).toBe('rm *');
      expect(atHome(`${'(cd /tmp/x); '.repeat(20_000)}rm -rf *`)).toBe('rm *');
      expect(atHome(`cd /tmp/x; ${'(cd /; f(){ :; }); '.repeat(10_000)}rm -rf *`)).toBeNull();
      expect(atHome(`${'cd /tmp/x | '.repeat(20_000)}true; rm -rf *`)).toBe('rm *');
      expect(atHome(`${'{ '.repeat(20_000)}cd /tmp/x;${' }'.repeat(20_000)} | true; rm -rf *`)).toBe('rm *');
      // Substitutions in double quotes nested 20,000 deep: read in one pass, none of their text read twice.
      expect(atHome(`echo ${'"$('.repeat(20_000)}cd /tmp/x${')"'.repeat(20_000)}; rm -rf *`)).toBe('rm *');
      expect(atHome(`echo ${'"$('.repeat(20_000)}rm -rf /${')"'.repeat(20_000)}`)).toBe('rm /');
      expect(atHome(`${'cd /tmp/x & '.repeat(20_000)}rm -rf *`)).toBe('rm *');
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });

  describe('commands that may not run: after && and ||, in branches and loops', () => {
    const HOME_U = '/home/u';
    const atHome = (text: string) => wholeTreeCommand(text, HOME_U, HOME_U);

    it('reads a command after || as run only if the list before failed, and one after && only if it succeeded', () => {
      expect(atHome('cd /; true || cd /tmp; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; false && cd /tmp; rm -rf *')).toBe('rm *');
      expect(atHome('test -d /tmp/x && cd /tmp/x; rm -rf *')).toBe('rm *'); // the cd may not run: rm in home
      expect(atHome('cd /; [ -n "$x" ] && { cd /tmp; }; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; cd /tmp && true || true; rm -rf *')).toBe('rm *'); // the cd may fail, staying in /
      expect(atHome('! cd /tmp/x && rm -rf *')).toBe('rm *'); // runs when the cd failed
      // A function's body written `function f { … }` inside the group ends no group.
      expect(atHome('true || { function f { :; }; cd /tmp/x; }; rm -rf *')).toBe('rm *');
      // An exit in a subshell ends only the subshell.
      expect(atHome('cd /tmp/x || (echo no; exit 1); rm -rf *')).toBe('rm *');
      // A bare exec (redirections only) goes on.
      expect(atHome('cd /tmp/x || exec 2>/dev/null; rm -rf *')).toBe('rm *');
      // Refused before as well, and still: the way where the command after || runs, a pipeline's cd, popd.
      expect(atHome('cd /tmp; true || cd /; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; false && cd /tmp | cat; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; true || pushd /tmp; popd; rm -rf *')).toBe('rm *');
    });

    it('reads the shell after an if, a case or a loop as where any branch left it, or none', () => {
      expect(atHome('cd /; if false; then cd /tmp; fi; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; if true; then cd /tmp; elif false; then cd /var/tmp; fi; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; case $x in a) cd /tmp;; esac; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; while false; do cd /tmp; done; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; until true; do cd /tmp; done; rm -rf *')).toBe('rm *');
      expect(atHome('cd /; for d in a; do cd /tmp; done; rm -rf *')).toBe('rm *');
      expect(atHome('if cd /tmp/x; then true; fi; rm -rf *')).toBe('rm *'); // the cd may fail
      // A case branch ending in ;& or ;;& goes on into the next: it runs where the one before left it.
      expect(atHome('cd /tmp/x; case a in a) cd / ;& b) rm -rf *;; esac')).toBe('rm *');
      expect(atHome('cd /tmp/x; case a in a) cd / ;;& b) rm -rf *;; esac')).toBe('rm *');
      expect(atHome('cd /tmp/x; case a in a) cd /;; b) rm -rf *;; esac')).toBeNull(); // ;; ends it
      // Each branch safe, an else always taken: let through.
      expect(atHome('cd /; if [ -n "$x" ]; then cd /tmp; else cd /var/tmp; fi; rm -rf *')).toBeNull();
      expect(atHome('cd /; case $x in a) cd /tmp;; esac; cd /tmp/x; rm -rf *')).toBeNull();
    });

    it('lets the common safe idioms through: a cd checked by && or || exit, a test before rm', () => {
      expect(atHome('cd build && rm -rf *')).toBeNull();
      expect(atHome('cd build || exit 1; rm -rf *')).toBeNull();
      expect(atHome('cd build || exit; cd sub || exit; rm -rf *')).toBeNull();
      expect(atHome('cd build 2>/dev/null || exit 1; rm -rf *')).toBeNull();
      expect(atHome('cd build || { echo no >&2; exit 1; }; rm -rf *')).toBeNull();
      expect(atHome('cd build || exec false; rm -rf *')).toBeNull();
      expect(atHome('die(){ echo "$1" >&2; exit 1; }; cd build || die no; rm -rf *')).toBeNull();
      expect(atHome('mkdir -p out && cd out && rm -rf *')).toBeNull();
      expect(atHome('[ -d build ] && rm -rf build')).toBeNull();
      expect(atHome('if [ -d build ]; then rm -rf build; fi')).toBeNull();
      expect(atHome('if cd build; then rm -rf *; fi')).toBeNull();
      expect(atHome('cd "$(mktemp -d)" && rm -rf *')).toBeNull();
      expect(atHome('cd build && rm -rf * || echo failed')).toBeNull();
      expect(atHome('pushd /tmp/x || exit; rm -rf *')).toBeNull();
      // A line break or a comment after && or || continues the list.
      expect(atHome('cd build &&\n  rm -rf *')).toBeNull();
      expect(atHome('cd build ||\n  exit 1\nrm -rf *')).toBeNull();
      expect(atHome('cd build || # no build folder\n  exit 1\nrm -rf *')).toBeNull();
      expect(atHome('cd /; true ||\n  cd /tmp/x\nrm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x; echo |\n  cd /\nrm -rf *')).toBeNull(); // the cd is a pipeline's: in a subshell
      // A plain sequence takes each cd as done: the text gives no sign it may fail.
      expect(atHome('cd build; rm -rf *')).toBeNull();
    });

    it('reads a variable a command that may be skipped sets as either value: its own or the one before', () => {
      expect(atHome('X=/; true || X=/tmp/x; rm -rf "$X"')).toBe('rm {/,/tmp/x}');
      expect(atHome('X=/; false && X=/tmp/x; rm -rf "$X"')).toBe('rm {/,/tmp/x}');
      expect(atHome('X=/; case a in b) X=/tmp/x;; esac; rm -rf "$X"')).toBe('rm {/,/tmp/x}');
      expect(atHome('d=/tmp/x; true || d="${HOME}"/; rm -rf "$d"')).toBe('rm {/tmp/x,$HOME/}');
      expect(atHome('d=/tmp/x; if [ -n "$x" ]; then d="${HOME}"; fi; rm -rf "$d"')).toBe('rm {/tmp/x,$HOME}');
      // Either value taking no tree, or one that runs: let through, as before.
      expect(atHome('d=build; [ -n "$x" ] && d=dist; rm -rf "$d"')).toBeNull();
      expect(atHome('X=/; X=/tmp/x && rm -rf "$X"')).toBeNull();
      // A default set (`:=`) by a command that may be skipped: either the value before or the default, as before.
      expect(atHome('true && : ${d:=/}; rm -rf "$d"')).toBe('rm {\u2039d\u203a,/}');
      // So is one after a reserved word: in a branch, a loop or a group.
      expect(atHome('if true; then : ${d:=/}; fi; rm -rf "$d"')).toBe('rm {\u2039d\u203a,/}');
      expect(atHome('{ : "${d:=/}"; }; rm -rf "$d"')).toBe('rm {\u2039d\u203a,/}');
      expect(atHome('while true; do : ${d:=/}; break; done; rm -rf "$d"')).toBe('rm {\u2039d\u203a,/}');
      expect(atHome('d=/tmp/x; if true; then : ${d:=/}; fi; rm -rf "$d"')).toBeNull(); // d is set: the default is not used
      // The parameters set gives are taken as given, as before.
      expect(atHome('[ -x ] && set -- /; rm -rf "$1"')).toBe('rm /');
    });

    it('reads a return in a function as ending the call, not the caller, and one outside a function as ending nothing', () => {
      // bash -c, which runs the command, says return is not allowed outside a function and goes on.
      expect(atHome('cd /tmp/x || return; rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x; f(){ cd build || return; rm -rf *; }; f')).toBeNull();
      expect(atHome('f(){ cd /tmp/x || return; }; cd /; f; rm -rf *')).toBe('rm *'); // the cd may fail: still in /
      expect(atHome('f(){ cd /tmp/x || return; }; f; rm -rf *')).toBe('rm *'); // or still in home
      expect(atHome('f(){ cd /tmp/x; }; cd /; f || exit; rm -rf *')).toBeNull();
    });

    it('reads cd - as going back to where the cd before left (OLDPWD), and $OLDPWD as that folder', () => {
      expect(atHome('cd /tmp/x && cd - && rm -rf *')).toBe('rm *');
      expect(atHome('cd /; (cd /tmp/x); cd -; rm -rf *')).toBe('rm *'); // the subshell's cd is gone: back to home
      expect(atHome('cd /tmp/x; true || cd /; cd -; rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x; rm -rf "$OLDPWD"/*')).toBe('rm /home/u/*');
      expect(atHome('cd -; rm -rf *')).toBe('rm *'); // no OLDPWD: cd - fails, staying in home
      expect(atHome('cd /tmp/x; cd /tmp/y; cd -; rm -rf *')).toBeNull();
      expect(wholeTreeCommand('cd build && make && cd - && rm -rf *', HOME_U, `${HOME_U}/project`)).toBeNull();
    });

    it("reads the shell after eval as where eval's cd took it", () => {
      expect(atHome("cd /tmp/x; eval 'cd /'; rm -rf *")).toBe('rm *');
      expect(atHome("cd /tmp/x; true && eval 'cd /'; rm -rf *")).toBe('rm *');
      expect(atHome("cd /; false || eval 'cd /tmp/x'; rm -rf *")).toBe('rm *'); // the eval may not run
      expect(atHome('eval cd build; rm -rf *')).toBeNull();
    });

    it('reads a function defined again as the new body, its header no call of the old one', () => {
      expect(atHome('f() { exit; }; f() { :; }; cd /; cd /tmp/x || f; rm -rf *')).toBe('rm *');
      expect(atHome('f() { cd /tmp/x; }\nf() { :; }\nrm -rf *')).toBe('rm *');
      expect(atHome('f() { cd /tmp/x; }; f; rm -rf *')).toBeNull();
    });

    it("reads a function's body that starts with an if, a loop or a case as the group it is: an exit in it may not run", () => {
      expect(atHome('f() { if false; then exit; fi; }; cd /; cd /tmp/x || f; rm -rf *')).toBe('rm *');
      expect(atHome('f() { for i in; do exit; done; }; cd /; cd /tmp/x || f; rm -rf *')).toBe('rm *');
      expect(atHome('f() { case a in b) exit;; esac; }; cd /; cd /tmp/x || f; rm -rf *')).toBe('rm *');
      expect(atHome('f() { while false; do exit; done; }; cd /; cd /tmp/x || f; rm -rf *')).toBe('rm *');
      expect(atHome('function f { if false; then exit; fi; }; cd /; cd /tmp/x || f; rm -rf *')).toBe('rm *');
      expect(atHome('g\nfunction f { if false; then exit; fi; }; cd /; cd /tmp/x || f; rm -rf *')).toBe('rm *');
      expect(atHome('f() {\n  if [ -z "$1" ]; then\n    return\n  fi\n  cd "$1"\n}\ncd /; f /tmp/x; rm -rf *')).toBe('rm *');
      // A body that always ends the way still does.
      expect(atHome('f() { echo no; exit 1; }; cd /; cd /tmp/x || f; rm -rf *')).toBeNull();
    });

    it('ends no way at an exit the line redefines, at a function header named exit, or at logout (bash -c goes on past it)', () => {
      expect(atHome('exit(){ :; }; cd /tmp/x || exit; rm -rf *')).toBe('rm *');
      expect(atHome('exit () { echo; }; cd /tmp/x || exit 1; rm -rf *')).toBe('rm *');
      expect(atHome('function exit { :; }; cd /tmp/x || exit; rm -rf *')).toBe('rm *');
      expect(atHome('shopt -s expand_aliases\nalias exit=true\ncd /tmp/x || exit\nrm -rf *')).toBe('rm *');
      expect(atHome('exec(){ :; }; cd /tmp/x || exec false; rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x || logout; rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x || ./exit; rm -rf *')).toBe('rm *');
      // An exit in a subshell, a pipeline or eval ends only that.
      expect(atHome('cd /tmp/x || (exit 1); rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x || exit | true; rm -rf *')).toBe('rm *');
      expect(atHome('cd /tmp/x || { exit; } | cat; rm -rf *')).toBe('rm *');
      // The builtin itself still ends it.
      expect(atHome('cd /tmp/x || command exit; rm -rf *')).toBeNull();
      expect(atHome('cd /tmp/x || builtin exit 1; rm -rf *')).toBeNull();
    });

    it('reads 100 KB of || and && lists, ifs, cases and loops in linear time', () => {
      const started = performance.now();
      expect(atHome(`cd /; ${'true || '.repeat(12_000)}cd /tmp; rm -rf *`)).toBe('rm *');
      expect(atHome(`cd /; ${'a && b || '.repeat(10_000)}cd /tmp; rm -rf *`)).toBe('rm *');
      expect(atHome(`${'cd /tmp/x || '.repeat(10_000)}exit; rm -rf *`)).toBeNull();
      expect(atHome(`cd /; ${'if x; then '.repeat(10_000)}cd /tmp;${' fi;'.repeat(10_000)} rm -rf *`)).toBe('rm *');
      expect(atHome(`cd /; ${'if x; then cd /tmp/a; else cd /tmp/b; fi; '.repeat(5_000)}rm -rf *`)).toBeNull();
      expect(atHome(`cd /; ${'case $x in a) '.repeat(10_000)}cd /tmp;${' esac;'.repeat(10_000)} rm -rf *`)).toBe('rm *');
      expect(atHome(`cd /; ${'while x; do '.repeat(10_000)}cd /tmp;${' done;'.repeat(10_000)} rm -rf *`)).toBe('rm *');
      expect(atHome(`${'pushd /tmp/a || '.repeat(8_000)}true; rm -rf *`)).toBe('rm *');
      expect(atHome(`${Array.from({ length: 5_000 }, (_, i) => `true || cd /tmp/d${i}; `).join('')}rm -rf *`)).toBe('rm *'); // many folders: read as /
      expect(atHome(`${'{ true || '.repeat(10_000)}cd /tmp/x;${' }'.repeat(10_000)} rm -rf *`)).toBe('rm *');
      expect(atHome(`case $x in ${Array.from({ length: 8_000 }, (_, i) => `p${i}) cd /tmp/d${i};;`).join(' ')} esac; rm -rf *`)).toBe('rm *');
      expect(atHome(`if x; then true; ${'elif y; then cd /tmp/a; '.repeat(8_000)}fi; rm -rf *`)).toBe('rm *');
      expect(atHome(`${'! '.repeat(50_000)}cd /tmp/x && rm -rf *`)).toBeNull(); // an even number of !: as none
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });

  describe('a shell given many words', () => {
    it('reads 25,000 shell words or 16,000 texts in linear time, and a loop over 1,000 names with blanks', () => {
      const started = performance.now();
      // Each text is given the words after it as parameters: these were copied for every word (35 s here).
      expect(wholeTreeCommand('zsh '.repeat(25_000), '/home/u', '/home/u')).toBeNull();
      expect(wholeTreeCommand(`zsh ${"'a b' ".repeat(16_000)}`, '/home/u', '/home/u')).toBe('zsh (given too many texts to be read)');
      const names = Array.from({ length: 1_000 }, (_, i) => `'file ${i}'`).join(' ');
      expect(wholeTreeCommand(`bash -c 'for f in "$@"; do echo "$f"; done' _ ${names}`, '/home/u', '/home/u')).toBeNull();
      expect(wholeTreeCommand(`bash -c 'rm -rf "$@"' _ ${names} /`, '/home/u', '/home/u')).toMatch(/^rm /);
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });

  // A variable not set on the line may be empty or unset where the command runs, and a command's
  // output may be nothing: `rm -rf "$DIR"/*` is then rm -rf /*. Such a target was taken as not known.
  describe('a value the line does not tell may be empty', () => {
    const HOME_U = '/home/u';
    const atHome = (text: string) => wholeTreeCommand(text, HOME_U, HOME_U);
    const inProject = (text: string) => wholeTreeCommand(text, HOME_U, `${HOME_U}/project`);

    it('reads a variable a test just before showed not empty as not empty: [ -n "$X" ] && rm -rf "$X"/*', () => {
      const atHome = (text: string) => wholeTreeCommand(text, '/home/u', '/home/u');
      expect(atHome('[ -n "$OUT" ] && rm -rf "$OUT"/*')).toBeNull();
      expect(atHome('[ -d "$OUT" ] && rm -rf "$OUT"/*')).toBeNull();
      expect(atHome('test -d "${OUT}" && [ -w "$OUT" ] && rm -rf "$OUT"/*')).toBeNull();
      expect(atHome('[[ -n $OUT ]] && { rm -rf "$OUT"/*; }')).toBeNull();
      expect(atHome('[ -z "$OUT" ] || rm -rf "$OUT"/*')).toBeNull();
      expect(atHome('if [ -d "$OUT" ]; then\n  echo cleaning\n  rm -rf "$OUT"/*\nfi')).toBeNull();
      expect(atHome('[ -d "$DIR" ] && cd "$DIR" && rm -rf *')).toBeNull();
      // Not where the test may not have run or said otherwise, nor past what may set the variable.
      expect(atHome('[ -n $OUT ] && rm -rf "$OUT"/*')).toMatch(/^rm /); // [ -n ] of an empty OUT is true
      expect(atHome('[ -n "$OUT" ] || rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('[ -n "$OUT" ]; rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('! [ -n "$OUT" ] && rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('a || [ -n "$OUT" ] && rm -rf "$OUT"/*')).toMatch(/^rm /); // a succeeded: no test
      expect(atHome('[ -z "$OUT" ] || a && rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('[ -n "$OUT" ] && [ -z "$OUT" ] || rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('if [ -d "$OUT" ]; then :; else rm -rf "$OUT"/*; fi')).toMatch(/^rm /);
      expect(atHome('if [ -d "$OUT" ]; then :; fi; rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('[ -n "$OUT" ] && read OUT && rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('[ -n "$OUT" ] && ((OUT=0)) && rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('[ -n "$OUT" ] && eval "OUT=" && rm -rf "$OUT"/*')).toMatch(/^rm /);
      expect(atHome('[ -n "$OUT" ] && rm -rf "$X"/*')).toMatch(/^rm /);
      // A chain of 6,000 tests, each of its own variable, in linear time.
      const started = performance.now();
      expect(atHome(`${Array.from({ length: 6_000 }, (_, i) => `[ -n "$A${i}" ] && `).join('')}rm -rf "$A5999"/*`)).toBeNull();
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('reads a cd to a variable not set on the line as one that may stay where it is (cd "") or go home (cd $X, empty: no word)', () => {
      const HOME_U = '/home/u';
      const atHome = (text: string) => wholeTreeCommand(text, HOME_U, HOME_U);
      const inProject = (text: string) => wholeTreeCommand(text, HOME_U, `${HOME_U}/project`);
      expect(atHome('cd "$DIR" && rm -rf *')).toBe('rm * (run where cd $DIR may have left the shell: if the value is empty, cd stays where it is or goes home; ${X:?} stops the cd then)');
      expect(atHome('cd "${DIR}" || exit 1; rm -rf *')).toMatch(/^rm \* \(run where cd/);
      expect(inProject('cd $DIR && rm -rf *')).toMatch(/^rm \* \(run where cd/);
      expect(inProject('pushd -- $DIR && rm -rf *')).toMatch(/^rm \* \(run where cd/);
      expect(inProject('cd "$DIR"/.. && rm -rf *')).toMatch(/^rm \* \(run where cd/); // cd /..: the root
      // Quoted, it stays in the project; ${DIR:?} stops the cd; a command's output and $1 are not read so.
      expect(inProject('cd "$DIR" && rm -rf *')).toBeNull();
      expect(atHome('cd "${DIR:?}" && rm -rf *')).toBeNull();
      expect(atHome('cd "$(mktemp -d)" && rm -rf *')).toBeNull();
      expect(atHome('cd "$DIR/build" && rm -rf *')).toBeNull();
    });

    it('refuses a target that is a whole tree once such a value is empty', () => {
      for (const text of [
        'rm -rf "$DIR/"',
        'rm -rf "$DIR"/*',
        'rm -rf $DIR/',
        'rm -rf "${DIR}/"',
        'rm -rf "${DIR%/}/"',
        'rm -rf "${!NAME}/"',
        'rm -rf "$DIR"/usr',
        'rm -rf "$TMPDIR"/*',
        'rm -rf "$HOMEDIR/"',
        'rm -rf "$(cat dir.txt)/"',
        'rm -rf "$(mktemp -d)"/*',
        'rm -rf "$(dirname "$(pwd)")/"',
        'find "$DIR/" -delete',
        'chown -R u "$DIR/"',
        'chmod -R 000 "$DIR"/etc',
        'sudo rm -rf "$DIR/"',
        'bash -c \'rm -rf "$DIR/"\'',
        'for d in $(ls); do rm -rf "$d/"; done',
        'while read -r d; do rm -rf "$d/"; done < list.txt',
      ]) {
        expect(inProject(text), text).toMatch(/^\S+ .* \(that is \/\S* if a variable or a command's output in it is empty; \$\{X:\?\} stops/);
      }
      // A glob in the folder the command runs in: home's.
      expect(atHome('rm -rf "$PREFIX"*')).toMatch(/^rm \$PREFIX\* \(that is \* if/);
    });

    it('reads "$(pwd)" as the folder the shell is in, never empty, unless the line makes pwd something else', () => {
      expect(inProject('rm -rf "$(pwd)"/*')).toBeNull();
      expect(inProject('rm -rf "$(pwd -P)"/build')).toBeNull();
      expect(inProject('X="$(pwd)"; rm -rf "$X"/*')).toBeNull();
      expect(atHome('rm -rf "$(pwd)"/*')).toBe('rm /home/u/*');
      expect(inProject('cd /; rm -rf "$(pwd)"/*')).toBe('rm //*');
      // Another command's output beside it may still be empty.
      expect(inProject('rm -rf "$(pwd)" "$(cat f)/"')).toMatch(/^rm \$\(\)\/ \(that is \/ if/);
      expect(inProject('rm -rf "$(pwd; echo /)"/*')).toMatch(/^rm /);
      expect(inProject('rm -rf "$(cd /; pwd)"/*')).toMatch(/^rm /);
      // pwd made a function or an alias that prints the root.
      expect(inProject('pwd(){ echo /; }; rm -rf "$(pwd)"/*')).toMatch(/^rm /);
      expect(inProject('alias pwd="echo /"; rm -rf "$(pwd)"/*')).toMatch(/^rm /);
      // A substitution the words cannot be matched with one by one is not read as pwd.
      expect(inProject(`rm -rf '$()'/* "$(pwd)"`)).toMatch(/^rm /);
      expect(inProject('pwd | true; rm -rf "$(cat f)"/*')).toMatch(/^rm /);
    });

    it('lets through what stays a part of a tree when it is empty, what must be set, and what the line sets', () => {
      for (const text of [
        'rm -rf "$DIR"',
        'rm -rf "$DIR/build"',
        'rm -rf "$DIR"/build/*',
        'rm -rf "${DIR:?}/"',
        'rm -rf "${DIR:?no folder given}"/*',
        'rm -rf "$PREFIX"*',
        'DIR=/tmp/a; rm -rf "$DIR/"',
        'for d in a b; do rm -rf "$d/"; done',
        'rm -rf "$HOME/.cache/x"',
        'rm -rf "${HOME}/.cache/x"',
        'rm -rf "$PWD/build"',
        'rm -rf "$USER"/tmp',
        'f(){ rm -rf "$1/"; }; f /tmp/x',
        'sh -c \'rm -rf "$1/"\' _ /tmp/x',
        "find . -name '*.tmp' | xargs -n1 sh -c 'rm -rf \"$1/\"' _",
        'ls "$DIR/"',
        'rm -f "$DIR/"*',
      ]) {
        expect(inProject(text), text).toBeNull();
      }
    });
  });

  describe('defaults and alternates (${X:-…})', () => {
    const HOME_U = '/home/u';
    const atHome = (text: string) => wholeTreeCommand(text, HOME_U, HOME_U);

    it('reads a default that may be used as a target: the variable may be unset', () => {
      expect(atHome('rm -rf "${X:-/}"')).toBe('rm {\u2039X\u203a,/}');
      expect(atHome('rm -rf ${X:-~}')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X:=/}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X-/}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X=/usr}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X:-${Y:-/}}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X:-*}"')).toMatch(/^rm /); // * in home
      expect(atHome('rm -rf "${X:-/}"/*')).toMatch(/^rm /);
      expect(atHome('rm -rf "${1:-/}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${@:-/}"')).toMatch(/^rm /);
      // Outside quotes a default of several words makes each (`rm -rf / x`).
      expect(atHome('rm -rf ${X:-/ x}')).toMatch(/^rm /);
      expect(atHome('rm -rf ${X:-x ~}')).toMatch(/^rm /);
      expect(atHome('rm -rf ${X:+x /}')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X:-/ x}"')).toBeNull(); // quoted: one word, `/ x`
      expect(atHome('rm -rf ${X:-a b} c')).toBeNull();
    });

    it('reads an alternate, used when the variable is set', () => {
      expect(atHome('rm -rf ${X:+/}')).toMatch(/^rm /);
      expect(atHome('rm -rf ${X+/}')).toMatch(/^rm /);
      expect(atHome('X=; rm -rf ${X+/}')).toBe('rm /'); // set, if empty
      expect(atHome('X=; rm -rf ${X:+/}')).toBeNull();
      expect(atHome('X=/tmp/b; rm -rf ${X:+~}')).toBe('rm ~');
    });

    it('carries a default through assignments, loops, calls and set --', () => {
      expect(atHome('d=${X:-/}; rm -rf "$d"')).toMatch(/^rm /);
      expect(atHome('d="${X:-${Y:-/}}"; rm -rf "$d"')).toMatch(/^rm /);
      expect(atHome('f(){ rm -rf "${1:-/}"; }; f')).toMatch(/^rm /);
      expect(atHome('f(){ rm -rf "$1"; }; f "${X:-/}"')).toMatch(/^rm /);
      expect(atHome('for d in "${X:-/}"; do rm -rf "$d"; done')).toMatch(/^rm /);
      expect(atHome('set -- "${X:-/}"; rm -rf "$1"')).toMatch(/^rm /);
      expect(atHome(': "${X:=/}"; rm -rf "$X"')).toMatch(/^rm /);
      // A cd to several folders may be in any: each is read, those not known left out.
      expect(atHome('cd "${X:-/}" && rm -rf *')).toBe('rm *');
      expect(atHome('for d in /tmp/a /; do cd "$d" && rm -rf *; done')).toBe('rm *');
      expect(atHome('cd "${X:-/tmp/x}" && rm -rf *')).toBeNull();
      expect(atHome('for d in /tmp/a /tmp/b; do cd "$d" && rm -rf *; done')).toBeNull();
      expect(atHome('cd "${X:?}" && rm -rf *')).toBeNull(); // not known at all, and not empty: not read, as before
    });

    it('reads a default with what the line set: empty takes it with :, set takes the value', () => {
      expect(atHome('X=/tmp/b; rm -rf "${X:-/}"')).toBeNull();
      expect(atHome('X=; rm -rf "${X:-/}"')).toBe('rm /');
      expect(atHome('X=; rm -rf "${X-/}"')).toBeNull(); // set, if empty: no default
      expect(atHome('X=; rm -rf "${X:=/}"; rm -rf "$X"')).toBe('rm /');
      expect(atHome('X=/tmp/b; if true; then X=; fi; rm -rf "${X:-/}"')).toBe('rm {/tmp/b,/}');
      expect(atHome('rm -rf "${X:?}"')).toBeNull();
      expect(atHome('X=/tmp/b; unset X; rm -rf "${X:-/}"')).toMatch(/^rm /);
      expect(atHome('X=/tmp/b; read X; rm -rf "${X:-/}"')).toMatch(/^rm /);
      expect(atHome('X=/tmp/b; if [ -e a ]; then unset X; fi; rm -rf "${X:-/}"')).toMatch(/^rm /);
      expect(atHome('X=/tmp/b; unset -f X; rm -rf "${X:-/}"')).toBeNull();
      // Not known: may be empty (a blank line), and rm -rf "$d"/* is then rm -rf /*.
      expect(atHome('while read d; do rm -rf "$d"/*; done < dirs.txt')).toMatch(/^rm \$d\/\* \(that is \/\* if/);
      expect(atHome('while read d; do rm -rf "${d:?}"/*; done < dirs.txt')).toBeNull();
      // A read or unset may leave the value as it was: read's input cannot be opened, the variable is
      // readonly, or the name is an option's value (read -p X).
      expect(atHome('X=/; read X < /nonexistent; rm -rf "$X"*')).toMatch(/^rm /);
      expect(atHome('X=/; read -p X Y; rm -rf "$X"*')).toMatch(/^rm /);
      expect(atHome('readonly X=/; unset X; rm -rf "$X"*')).toMatch(/^rm /);
      expect(atHome('X=/; read X; rm -rf "$X"/build')).toBeNull();
      // An unset variable is empty, whatever it held before the line.
      expect(atHome('unset X; rm -rf "$X"/*')).toMatch(/^rm /);
      expect(atHome('unset X; rm -rf "$X"/build "$X"')).toBeNull();
      // A value an earlier default left partly not known may still be unset.
      expect(atHome('f(){ : "${X:=/tmp/b}"; }; rm -rf "${X:-/}"')).toMatch(/^rm /);
      expect(atHome('X=; if [ -e a ]; then : "${X:=/tmp/b}"; fi; rm -rf "${X:-/}"')).toBe('rm {/,/tmp/b}');
      expect(atHome('X=; f(){ : "${X:=/tmp/b}"; }; rm -rf "${X:-/}"')).toBe('rm {/,/tmp/b}');
      expect(atHome(': "${X:=/tmp/b}"; rm -rf "${X:-/}"')).toBeNull();
      expect(atHome('d=${X:-/tmp/b}; rm -rf "${d:-/}"')).toBeNull(); // d is set: X's value or /tmp/b
      expect(atHome('d=${X:-/tmp/b}; rm -rf "${X:-/}"')).toMatch(/^rm /);
      expect(atHome('X=/; rm -rf "${X:?}"')).toBe('rm /');
    });

    it('reads an empty default (the set -u idiom) as a variable that may be empty', () => {
      expect(atHome('rm -rf "${X:-}"/')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X-}/"')).toMatch(/^rm /);
      expect(atHome('rm -rf "$HOME/${SUB:-}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${X:=}/"*')).toMatch(/^rm /);
      expect(atHome('cd "${X:-}"; rm -rf *')).toBe('rm *');
      // ${X:?} stops the command when X is empty: the safe spelling stays allowed, as does a value set on the line.
      expect(atHome('rm -rf "${X:?}/"')).toBeNull();
      expect(atHome('X=/tmp/x; rm -rf "${X:-}/"')).toBeNull();
      expect(atHome('rm -rf "${X:-}"')).toBeNull();
    });

    it('lets through defaults that are no whole tree', () => {
      expect(atHome('rm -rf "${X:-build}"')).toBeNull();
      expect(atHome('rm -rf "${X:-/tmp/build}"/*')).toBeNull();
      expect(atHome('rm -rf "${TMPDIR:-/tmp}/x"')).toBeNull();
      expect(atHome('rm -rf "${BUILD_DIR:-}/out"')).toBeNull();
      expect(atHome('rm -rf "${X:-${Y:-dist}}"')).toBeNull();
      expect(atHome('d=${X:-build}; rm -rf "$d"')).toBeNull();
      expect(atHome('cleanup(){ rm -rf "${1:-build}"; }; cleanup /tmp/build')).toBeNull();
      expect(atHome('rm -rf "${X%/*}" "${#X}" "${X/a/b}"')).toBeNull();
      expect(atHome('X=/tmp/b/c; rm -rf "${X%/*}/" "${X%%/c}" "${X#/tmp}" "${X##*/}"')).toBeNull();
    });

    it('reads a default through another variable or an array item, and a known value with a pattern taken off', () => {
      expect(atHome('rm -rf "${!X:-/}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${a[0]:-/}"')).toMatch(/^rm /);
      expect(atHome('rm -rf "${a[@]:-~}"')).toMatch(/^rm /);
      expect(atHome('X=/tmp; rm -rf "${X%/*}/"')).toBe('rm /');
      expect(atHome('X=/home/u/x; rm -rf "${X%/*}"')).toBe('rm /home/u');
      expect(atHome('X=/usr/x; rm -rf "${X%%/x}"')).toBe('rm /usr');
      expect(atHome('X=a/usr; rm -rf "/${X#a/}"')).toBe('rm /usr');
      expect(atHome('X=/a/b/etc; rm -rf "/${X##*/}"')).toBe('rm /etc');
      expect(atHome('X=/tmp/x; rm -rf "${X%%/[a-z]*}"/*')).toBe('rm /*');
      // In double quotes a pattern's single quotes (and $'…') still quote, as bash reads them: `"${X%'ab'}"` is /.
      expect(atHome(`X=/ab; rm -rf "\${X%'ab'}"`)).toBe('rm /');
      expect(atHome(`X=/ab; rm -rf "\${X%'a'b}"`)).toBe('rm /');
      expect(atHome(`X=/a/usr; rm -rf "/\${X#'/a/'}"`)).toBe('rm /usr');
      expect(atHome(`X=/usr/x; rm -rf "\${X%'/x'}"`)).toBe('rm /usr');
      expect(atHome(`X=/ab; rm -rf "\${X%$'ab'}"`)).toBe('rm /');
      expect(atHome(`X=/a*; rm -rf "\${X%'a*'}"`)).toBe('rm /'); // quoted: * is itself
      expect(atHome(`X=/tmp/ab; rm -rf "\${X%'ab'}"`)).toBeNull();
    });

    it('reads a 100 KB line of defaults, nested or not, in linear time', () => {
      const started = performance.now();
      expect(atHome(`rm -rf "${'${X:-'.repeat(20_000)}/${'}'.repeat(20_000)}"`)).toMatch(/^rm /);
      expect(atHome(`echo ${'"${X:-a}" '.repeat(10_000)}`)).toBeNull();
      expect(atHome(`rm -rf ${'"${X:-a}" '.repeat(10_000)}`)).toBeNull();
      expect(atHome(`d=/tmp/b; ${'d=${d:-/}; '.repeat(5_000)}rm -rf "$d"`)).toBeNull();
      expect(atHome(`echo "${'${X:-'.repeat(20_000)}`)).toBeNull(); // never closed
      expect(atHome(`rm -rf ${'${X:- a'.repeat(20_000)}${'}'.repeat(20_000)}`)).toMatch(/^rm /); // a blank in each
      expect(atHome(`echo ${'${X/'.repeat(20_000)}a b${'}'.repeat(20_000)}`)).toBeNull();
      expect(atHome(`X=${'a'.repeat(200)}; rm -rf ${'"${X%*a*a*a*a*b}" '.repeat(2_000)}`)).toBeNull();
      expect(atHome(`X={${'a'.repeat(100)},${'b'.repeat(100)}}; rm -rf ${'"${X##*[ab]*b}" '.repeat(4_000)}`)).toBeNull();
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });
});
