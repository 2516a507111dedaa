// A stdio "server" that ignores its closed input (and SIGTERM), with a child of its own that does too,
// and a grandchild that does too whose parent (sh) has exited, so it is no longer in the server's tree.
// Writes "<its pid> <its child's pid> <the grandchild's pid>" to the file named by its first argument,
// then runs until killed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const linger = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)';
process.on('SIGTERM', () => {});
process.stdin.resume();
process.stdin.on('end', () => {});
const child = spawn(process.execPath, ['-e', linger], { stdio: 'ignore' });
const sh = spawn('sh', ['-c', '"$0" -e "$1" </dev/null >/dev/null 2>&1 & echo $!', process.execPath, linger], { stdio: ['ignore', 'pipe', 'ignore'] });
let grandchild = '';
sh.stdout.on('data', (chunk) => (grandchild += chunk));
sh.on('close', () => writeFileSync(process.argv[2], `${process.pid} ${child.pid} ${grandchild.trim()}`));
setInterval(() => {}, 1000);
