// A stdio "server" that ignores its closed input (and SIGTERM), with a child of its own that does too.
// Writes "<its pid> <its child's pid>" to the file named by its first argument, then runs until killed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const linger = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)';
process.on('SIGTERM', () => {});
process.stdin.resume();
process.stdin.on('end', () => {});
const child = spawn(process.execPath, ['-e', linger], { stdio: 'ignore' });
writeFileSync(process.argv[2], `${process.pid} ${child.pid}`);
setInterval(() => {}, 1000);
