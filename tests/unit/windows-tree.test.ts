import { describe, expect, it } from 'vitest';
import { isWindowsWholeTree, windowsTreeCommand } from '../../src-main/commands/windows-tree';

const HOME = 'C:\\Users\\ana';
/** A command as execute_command runs it: in home when no folder is given. */
const wipes = (text: string, cwd: string | null = '~') => windowsTreeCommand(text, HOME, cwd);
/** -EncodedCommand's form of `text`: base64 of its UTF-16LE bytes. */
const encoded = (text: string) => Buffer.from(text, 'utf16le').toString('base64');

describe('windowsTreeCommand: what is refused', () => {
  it('reads Remove-Item and its aliases with -Recurse or any start of it', () => {
    expect(wipes('Remove-Item -Recurse -Force C:\\')).toBe('Remove-Item C:\\');
    expect(wipes('Remove-Item -Path $env:USERPROFILE -Recurse')).toBe('Remove-Item C:\\Users\\ana');
    expect(wipes('rm -r -fo ~')).toBe('rm ~');
    expect(wipes('ri -r C:\\Windows')).toBe('ri C:\\Windows');
    expect(wipes('remove-item -REC -LiteralPath "C:\\Program Files"')).toBe('remove-item C:\\Program Files');
    expect(wipes('Remove-Item -Recurse:$true -Path:C:\\ProgramData')).toBe('Remove-Item C:\\ProgramData');
    expect(wipes('del -Recurse C:\\Users')).toBe('del C:\\Users');
    expect(wipes('erase -recu $HOME')).toBe('erase C:\\Users\\ana');
    expect(wipes('rmdir -r C:\\Users\\ana')).toBe('rmdir C:\\Users\\ana');
    expect(wipes('Microsoft.PowerShell.Management\\Remove-Item -Recurse C:\\')).toBe('Microsoft.PowerShell.Management\\Remove-Item C:\\');
  });

  it('knows drive roots, system folders and homes in any spelling', () => {
    for (const target of [
      'C:\\', 'C:', 'C:/', '\\', '/', 'D:\\', 'c:\\windows\\', 'C:/Windows/', 'C:\\WINDOWS\\*', 'C:\\Windows\\*.*', 'C:\\*',
      "'C:\\Program Files (x86)'", '"C:\\Program Files\\"', 'C:\\ProgramData', 'C:\\Users\\*', 'C:\\Users\\bob', '~',
      '~\\', '$HOME', '"$env:USERPROFILE\\*"', '$env:HOMEDRIVE$env:HOMEPATH', '${env:USERPROFILE}', '$env:SystemRoot',
      '$env:windir', '"${env:ProgramFiles(x86)}"', '$env:ProgramFiles', '$env:SystemDrive\\', 'C:\\Users\\ana\\Downloads\\..',
      'FileSystem::C:\\', '\\\\?\\C:\\Windows', 'C:\\Win*', 'C:\\Users\\a?a', '.', '*', '..',
    ]) {
      expect(wipes(`Remove-Item -Recurse -Force ${target}`), target).not.toBeNull();
    }
  });

  it("reads cmd's rd, rmdir, del and erase with /s, in PowerShell and in cmd /c", () => {
    expect(wipes('rd /s /q C:\\Users')).toBe('rd C:\\Users');
    expect(wipes('cmd /c "del /s /q C:\\*"')).toBe('del C:\\*');
    expect(wipes('cmd.exe /c rmdir /S /Q %USERPROFILE%')).toBe('rmdir C:\\Users\\ana');
    expect(wipes('C:\\Windows\\System32\\cmd.exe /C "rd /s/q %HOMEDRIVE%%HOMEPATH%"')).toBe('rd C:\\Users\\ana');
    expect(wipes('cmd /c "cd /d C:\\ && rd /s /q Windows"')).toBe('rd Windows');
    expect(wipes('cmd /c "if exist C:\\x (erase /s /q %SystemRoot%)"')).toBe('erase C:\\Windows');
    expect(wipes('cmd /c "echo hi & rd /s /q C:\\ & echo done"')).toBe('rd C:\\');
    expect(wipes('cmd /c rd /s /q %ProgramFiles(x86)%')).toBe('rd C:\\Program Files (x86)');
    expect(wipes('Remove-Item -Recurse ~ 2>&1 | Out-Null')).toBe('Remove-Item ~');
  });

  it('reads takeown /r and icacls /t that resets, grants, denies, removes or sets the owner', () => {
    expect(wipes('takeown /r /f C:\\Windows')).toBe('takeown C:\\Windows');
    expect(wipes('takeown /F C:\\ /R /D Y')).toBe('takeown C:\\');
    expect(wipes('icacls C:\\ /reset /t')).toBe('icacls C:\\');
    expect(wipes('icacls "C:\\Users\\ana" /grant:r Everyone:F /T /C')).toBe('icacls C:\\Users\\ana');
    expect(wipes('icacls C:\\Windows\\* /deny ana:F /t')).toBe('icacls C:\\Windows\\*');
    expect(wipes('icacls.exe $env:USERPROFILE /setowner Everyone /t')).toBe('icacls.exe C:\\Users\\ana');
    expect(wipes('icacls C:\\ProgramData /remove:g Users /t')).toBe('icacls C:\\ProgramData');
  });

  it('reads a whole tree listed by Get-ChildItem and piped into Remove-Item', () => {
    expect(wipes('Get-ChildItem C:\\ | Remove-Item -Recurse')).toBe('Get-ChildItem C:\\ | Remove-Item');
    expect(wipes('gci -Path ~ -Force | ri -r -fo')).toBe('gci ~ | ri');
    expect(wipes('ls C:\\Windows -Recurse | rm')).toBe('ls C:\\Windows | rm');
    expect(wipes('dir -Recurse | Remove-Item -Force')).toBe('dir . | Remove-Item'); // in home
    expect(wipes('Get-Item C:\\Windows | Remove-Item -Recurse -Force')).toBe('Get-Item C:\\Windows | Remove-Item');
    expect(wipes('gi $env:USERPROFILE | ri -r')).toBe('gi C:\\Users\\ana | ri');
  });

  it('cuts the text at ; && || & | lines and script blocks, and reads comments and backticks as PowerShell does', () => {
    expect(wipes('Write-Output hi; Remove-Item -Recurse C:\\')).toBe('Remove-Item C:\\');
    expect(wipes('git pull && ri -r -fo ~ || echo failed')).toBe('ri ~');
    expect(wipes('New-Item x -ItemType Directory\nri -r C:\\Users')).toBe('ri C:\\Users');
    expect(wipes('if (Test-Path C:\\x) { Remove-Item -Recurse C:\\ }')).toBe('Remove-Item C:\\');
    expect(wipes('1..3 | ForEach-Object { Remove-Item -Recurse $env:USERPROFILE }')).toBe('Remove-Item C:\\Users\\ana');
    expect(wipes('Remove-Item `\n  -Recurse `\n  C:\\Windows')).toBe('Remove-Item C:\\Windows');
    expect(wipes('Remove-Item -R`ecurse C:\\')).toBe('Remove-Item C:\\');
    expect(wipes('<# cleanup #> Remove-Item -Recurse ~')).toBe('Remove-Item ~');
    expect(wipes("Remove-Item -Recurse 'C:\\Users\\ana\\project', 'C:\\ProgramData'")).toBe('Remove-Item C:\\ProgramData');
    expect(wipes('Remove-Item -Recurse "$(Get-Date)", C:\\')).toBe('Remove-Item C:\\');
  });

  it('reads the text of a nested powershell, pwsh, -EncodedCommand, cmd /c and Invoke-Expression', () => {
    expect(wipes('powershell -NoProfile -Command "Remove-Item -Recurse C:\\Windows"')).toBe('Remove-Item C:\\Windows');
    expect(wipes("pwsh -NoProfile -ExecutionPolicy Bypass -c 'rm -r -fo ~'")).toBe('rm ~');
    expect(wipes('powershell.exe Remove-Item -Recurse C:\\Users')).toBe('Remove-Item C:\\Users');
    expect(wipes(`powershell -NoP -EncodedCommand ${encoded('Remove-Item -Recurse -Force C:\\')}`)).toBe('Remove-Item C:\\');
    expect(wipes(`pwsh -enc ${encoded('cmd /c rd /s /q %USERPROFILE%')}`)).toBe('rd C:\\Users\\ana');
    expect(wipes('cmd /c powershell -c "ri -r C:\\ProgramData"')).toBe('ri C:\\ProgramData');
    expect(wipes("Invoke-Expression 'Remove-Item -Recurse C:\\'")).toBe('Remove-Item C:\\');
    expect(wipes('iex "rd /s /q $env:USERPROFILE"')).toBe('rd C:\\Users\\ana');
    expect(wipes('Write-Output $(Remove-Item -Recurse ~)')).toBe('Remove-Item ~');
    expect(wipes('& { Remove-Item -Recurse C:\\ }')).toBe('Remove-Item C:\\');
    expect(wipes('sudo Remove-Item -Recurse C:\\Windows')).toBe('Remove-Item C:\\Windows');
  });

  it('reads literal variables set earlier in the text, and relative targets from the folder it runs in', () => {
    expect(wipes("$d = 'C:\\'; Remove-Item $d -Recurse")).toBe('Remove-Item C:\\');
    expect(wipes('$target = "$env:USERPROFILE"\nrm -r -fo $target')).toBe('rm C:\\Users\\ana');
    expect(wipes('$env:X = "C:\\Windows"; Remove-Item -Recurse $env:X')).toBe('Remove-Item C:\\Windows');
    expect(wipes('Remove-Item -Recurse -Force *')).toBe('Remove-Item *'); // home
    expect(wipes('Remove-Item -Recurse -Force $PWD')).toBe('Remove-Item c:\\users\\ana'); // the folder as read
    expect(wipes('cd C:\\; Remove-Item -Recurse Windows')).toBe('Remove-Item Windows');
    expect(wipes('Set-Location ~\\project; Remove-Item -Recurse ..')).toBe('Remove-Item ..');
    expect(wipes('rm -r -fo *', 'C:\\Windows')).toBe('rm *');
  });
});

describe('windowsTreeCommand: what other commands start or run', () => {
  it('reads the command Start-Process (saps, start) and cmd\'s start run, -ArgumentList named or not', () => {
    expect(wipes("Start-Process powershell -ArgumentList '-Command','Remove-Item -Recurse C:\\Windows'")).toBe('Remove-Item C:\\Windows');
    expect(wipes("Start-Process cmd -ArgumentList '/c rd /s /q C:\\'")).toBe('rd C:\\');
    expect(wipes("saps cmd '/c rd /s /q C:\\'")).toBe('rd C:\\');
    expect(wipes("start cmd -ArgumentList '/c','rd','/s','/q','C:\\'")).toBe('rd C:\\');
    expect(wipes('Start-Process powershell "-Command Remove-Item -Recurse C:\\Users"')).toBe('Remove-Item C:\\Users');
    expect(wipes("Start-Process -FilePath pwsh.exe -Verb RunAs -ArgumentList '-NoProfile','-c','ri -r -fo ~' -Wait")).toBe('ri ~');
    expect(wipes("Start-Process -Args:'/r /f C:\\Windows' -FilePath takeown")).toBe('takeown C:\\Windows');
    expect(wipes(`Start-Process powershell -ArgumentList "-EncodedCommand ${encoded('Remove-Item -Recurse C:\\')}"`)).toBe('Remove-Item C:\\');
    expect(wipes('cmd /c start "" cmd /c rd /s /q C:\\')).toBe('rd C:\\');
    expect(wipes('cmd /c start /min /wait cmd /c rd /s /q %USERPROFILE%')).toBe('rd C:\\Users\\ana');
    // In the folder it is started in.
    expect(wipes("Start-Process cmd -WorkingDirectory C:\\ -ArgumentList '/c rd /s /q Windows'")).toBe('rd Windows');
    expect(wipes('cmd /c start /d C:\\ cmd /c rd /s /q Windows')).toBe('rd Windows');
    expect(wipes("Start-Process cmd -WorkingDirectory C:\\Users\\ana\\project -ArgumentList '/c rd /s /q *'")).toBeNull();
  });

  it('reads a loop over a listing or over values with each item in its variable', () => {
    expect(wipes('Get-ChildItem C:\\ | ForEach-Object { Remove-Item $_ -Recurse }')).toBe('Remove-Item C:\\*');
    expect(wipes('gci C:\\ | % { ri -r $_.FullName }')).toBe('ri C:\\*');
    expect(wipes('ls C:\\Users -Force | ForEach-Object -Process { Remove-Item -Recurse -Force $PSItem }')).toBe('Remove-Item C:\\Users\\*');
    expect(wipes('gci C:\\Users | % { ri -r "$($_.FullName)" }')).toBe('ri C:\\Users\\*');
    expect(wipes('Get-Item ~ | % { ri -r $_ }')).toBe('ri ~');
    expect(wipes('gci | % { rm -r -fo $_ }')).toBe('rm .\\*'); // in home
    expect(wipes("foreach ($d in 'C:\\','D:\\') { Remove-Item -Recurse $d }")).toBe('Remove-Item C:\\');
    expect(wipes("foreach ($d in @('build', $env:ProgramData)) { Remove-Item -Recurse $d }")).toBe('Remove-Item C:\\ProgramData');
    expect(wipes('foreach ($d in Get-ChildItem C:\\Windows) { Remove-Item -Recurse -Force $d.FullName }')).toBe('Remove-Item C:\\Windows\\*');
    expect(wipes('foreach ($d in (gci ~)) {\n  if ($d) { Remove-Item -Recurse $d }\n}')).toBe('Remove-Item ~\\*');
    expect(wipes('gci C:\\ | % { $_ | Remove-Item -Recurse }')).toBe('C:\\* | Remove-Item');
    // ForEach-Object's -Process block after its -Begin block, named or not.
    expect(wipes('gci C:\\ | % -Begin { $n = 0 } -Process { ri -r $_ }')).toBe('ri C:\\*');
    expect(wipes('gci C:\\ | ForEach-Object { } { ri -r $_ } { }')).toBe('ri C:\\*');
  });

  it('reads a path piped alone into a Remove-Item that recurses', () => {
    expect(wipes("'C:\\' | Remove-Item -Recurse")).toBe('C:\\ | Remove-Item');
    expect(wipes('$env:USERPROFILE | ri -r -fo')).toBe('C:\\Users\\ana | ri');
    for (const command of ["'build' | Remove-Item -Recurse", "'C:\\' | Remove-Item", "'C:\\' | Remove-Item -Recurse -WhatIf", 'Get-Date | Remove-Item -Recurse']) {
      expect(wipes(command), command).toBeNull();
    }
  });

  it('reads here-strings as the text they hold, given to Invoke-Expression, powershell -Command or a variable', () => {
    expect(wipes("Invoke-Expression @'\nWrite-Output 'x'; Remove-Item -Recurse 'C:\\Windows'\n'@")).toBe('Remove-Item C:\\Windows');
    expect(wipes('iex @"\nRemove-Item -Recurse "$env:USERPROFILE"\n"@')).toBe('Remove-Item C:\\Users\\ana');
    expect(wipes("powershell -Command @'\r\nrd /s /q \"C:\\\"\r\n'@")).toBe('rd C:\\');
    expect(wipes("$s = @'\nRemove-Item -Recurse C:\\\n'@\niex $s")).toBe('Remove-Item C:\\');
    // A quote inside a here-string does not end it, nor start a string that hides what follows it.
    expect(wipes("$x = @'\n'\n'@\nRemove-Item -Recurse C:\\")).toBe('Remove-Item C:\\');
    expect(wipes("Set-Content notes.txt @'\nit's Remove-Item -Recurse C:\\ in a note\n'@")).toBeNull();
    expect(wipes('Write-Output @"\n$(Remove-Item -Recurse ~)\n"@')).toBe('Remove-Item ~');
  });

  it('reads a group that only holds a string as that string, and a command name that a group follows at once', () => {
    expect(wipes("iex(@'\nRemove-Item -Recurse C:\\\n'@)")).toBe('Remove-Item C:\\');
    expect(wipes("iex ('Remove-Item -Recurse C:\\')")).toBe('Remove-Item C:\\');
    expect(wipes('iex("Remove-Item -Recurse $env:USERPROFILE")')).toBe('Remove-Item C:\\Users\\ana');
    expect(wipes("Remove-Item -Recurse ('C:\\Windows')")).toBe('Remove-Item C:\\Windows');
    expect(wipes(".('Remove-Item') -Recurse C:\\")).toBe('Remove-Item C:\\');
    expect(wipes("foreach($d in 'C:\\'){ ri -r $d }")).toBe('ri C:\\');
    expect(wipes("Write-Output ('Remove-Item -Recurse C:\\')")).toBeNull();
    expect(wipes('Remove-Item -Recurse (Join-Path $env:USERPROFILE cache)')).toBeNull();
  });

  it('reads a script block run with arguments: its param() and $args', () => {
    expect(wipes("& { param($p) Remove-Item -Recurse $p } 'C:\\'")).toBe('Remove-Item C:\\');
    expect(wipes('& { Remove-Item -Recurse $args[0] } C:\\Windows')).toBe('Remove-Item C:\\Windows');
    expect(wipes('. { param([string]$a, $b) ri -r $b } x $HOME')).toBe('ri C:\\Users\\ana');
    expect(wipes('Invoke-Command -ScriptBlock { param($p) ri -r $p } -ArgumentList $env:USERPROFILE')).toBe('ri C:\\Users\\ana');
    expect(wipes("icm -ArgumentList 'C:\\' { ri -r $args[0] }")).toBe('ri C:\\');
    expect(wipes('& { param($p)\n  Remove-Item -Recurse C:\\ProgramData }')).toBe('Remove-Item C:\\ProgramData');
  });

  it('lets what starts, loops or runs below the trees through', () => {
    for (const command of [
      "Start-Process notepad -ArgumentList 'C:\\Windows\\win.ini'",
      'Start-Process explorer C:\\',
      "Start-Process cmd -ArgumentList '/c rd /s /q C:\\Users\\ana\\build'",
      'start https://example.com',
      "Start-Process powershell -ArgumentList '-File','C:\\Users\\ana\\x.ps1','C:\\'",
      'cmd /c start "" notepad C:\\Windows\\win.ini',
      'Get-ChildItem C:\\ | ForEach-Object { $_.Name }',
      'gci C:\\ | % -Begin { } -Process { $_.Name } -End { }',
      "if ($x) { 1 } else { ri -r $_ }",
      'Get-ChildItem C:\\ | ForEach-Object { Write-Output $_.FullName }',
      'gci C:\\Users\\ana\\project | % { ri -r $_ }',
      'gci C:\\Users | % { ri -r "$_\\AppData\\Local\\Temp\\*" }',
      'gci C:\\ -Filter *.log | % { ri -r $_ }',
      'gci C:\\ | % { ri -r $_.Name }', // names read in the folder it runs in, not C:\\
      "foreach ($d in 'build','dist') { Remove-Item -Recurse $d }",
      'foreach ($f in Get-ChildItem C:\\ -Filter *.tmp) { ri -r $f }',
      "& { param($p) Remove-Item -Recurse $p } 'C:\\Users\\ana\\build'",
      'Invoke-Command -ComputerName srv -ScriptBlock { Get-ChildItem C:\\ }',
      "if ($x) { Remove-Item -Recurse $args[0] } else { Write-Output 'C:\\' }",
      'Remove-Item -Recurse C:\\Users\\me\\build',
      "$t = @'\nRemove-Item -Recurse C:\\\n'@\nWrite-Output $t",
    ]) {
      expect(wipes(command), command).toBeNull();
    }
  });

  it('reads blocks run again and again in bounded time, refusing what is too much to read', () => {
    const values = (prefix: string) => Array.from({ length: 1_000 }, (_, i) => `'${prefix}${i}'`).join(',');
    const started = performance.now();
    expect(wipes(`foreach ($a in ${values('a')}) { foreach ($b in ${values('b')}) { ri -r "$a\\$b" } }`)).toMatch(/run too often to be read/);
    expect(wipes('gci C:\\x | % { '.repeat(2_000) + '}'.repeat(2_000))).toMatch(/run too often to be read/);
    wipes('{'.repeat(20_000) + '}'.repeat(20_000));
    wipes("@'\n".repeat(10_000));
    wipes("iex @'\nx\n'@\n".repeat(3_000));
    wipes(`Start-Process ${'-ArgumentList '.repeat(5_000)}`);
    wipes(`gci C:\\x | % ${'{ } x '.repeat(6_000)}`);
    wipes(`icm ${'{ } -x '.repeat(6_000)}`);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('windowsTreeCommand: what passes through filters, variables, functions and methods', () => {
  /** As the never-run rule is measured: home and the folder it runs in are C:\\Users\\u. */
  const refuses = (text: string) => windowsTreeCommand(text, 'C:\\Users\\u', 'C:\\Users\\u');

  it('reads a listing through Where-Object, Sort-Object and Select-Object as every item it lists, into a loop or Remove-Item', () => {
    expect(refuses("gci C:\\ | ? { $_.Name -ne 'x' } | % { ri -r -fo $_.FullName }")).toBe('ri C:\\*');
    expect(refuses("gci C:\\ | where { $_.Name -ne 'x' } | % { ri -r -fo $_ }")).toBe('ri C:\\*');
    expect(refuses("Get-ChildItem C:\\ | Where-Object -FilterScript { $_.Name -ne 'x' } | ForEach-Object { Remove-Item -Recurse $_ }")).toBe('Remove-Item C:\\*');
    expect(refuses('gci C:\\ | Sort-Object Length | Select-Object -First 3 | % { ri -r $_ }')).toBe('ri C:\\*');
    expect(refuses('gci ~ | sort | select -First 1 | % { ri -r $_.FullName }')).toBe('ri ~\\*');
    expect(refuses("gci C:\\ | ? { $_.PSIsContainer } | Remove-Item -Recurse -Force")).toBe('gci C:\\ | Remove-Item');
    expect(refuses('gci C:\\Users | ? { $_ } | sort | ri -r')).toBe('gci C:\\Users | ri');
    expect(refuses('gci C:\\Windows | Select-Object -ExpandProperty FullName | Remove-Item -Recurse')).toBe('gci C:\\Windows | Remove-Item');
    expect(refuses("gci C:\\ | ? { $_.Name -ne 'x' } | sort { $_.Name } | % { ri -r $_ }")).toBe('ri C:\\*');
    // The filter's own block runs with each item too.
    expect(refuses('gci C:\\ | ? { ri -r $_; $true }')).toBe('ri C:\\*');
  });

  it('reads what ForEach-Object writes of the items as possibly their paths, and common parameters as taking a value', () => {
    expect(refuses('Get-ChildItem C:\\ | ForEach-Object FullName | Remove-Item -Recurse')).toBe('Get-ChildItem C:\\ | Remove-Item');
    expect(refuses('gci C:\\ | % { $_.FullName } | ri -r')).toBe('gci C:\\ | ri');
    expect(refuses('Get-ChildItem C:\\ -Force | Remove-Item -Recurse -Force -ErrorAction SilentlyContinue')).toBe('Get-ChildItem C:\\ | Remove-Item');
    expect(refuses('gci C:\\ -ea 0 -Depth 1 -Attributes Directory | ri -r')).toBe('gci C:\\ | ri');
    expect(refuses('Remove-Item -Recurse -Path (gci C:\\)')).toBe('Remove-Item C:\\*');
  });

  it('reads -Exclude, and -Include or -Filter of *, as selecting nothing, and a listing in parentheses piped on as its items', () => {
    expect(refuses('ri -r C:\\Users\\u\\* -Exclude .ssh')).toBe('ri C:\\Users\\u\\*');
    expect(refuses('ri -r C:\\* -Include *')).toBe('ri C:\\*');
    expect(refuses('gci C:\\ -Exclude x | ri -r')).toBe('gci C:\\ | ri');
    expect(refuses('gci ~ -Filter *.* | % { ri -r $_ }')).toBe('ri ~\\*');
    expect(refuses('(gci C:\\) | ri -r')).toBe('C:\\* | ri');
  });

  it('refuses a listing of a whole tree filtered by a condition it cannot evaluate, which may keep every item', () => {
    expect(refuses("gci C:\\ | ? Name -eq 'tmp' | % { ri -r $_.FullName }")).toBe('ri C:\\*');
    expect(refuses("gci C:\\ | Where-Object Name -like 'x*' | % { ri -r $_ }")).toBe('ri C:\\*');
    expect(refuses('Get-ChildItem ~ | Where-Object Name -like "*.tmp" | Remove-Item -Recurse')).toBe('Get-ChildItem ~ | Remove-Item');
  });

  it('reads a listing saved to a variable as every item it lists, piped, looped over or removed', () => {
    expect(refuses('$d = gci C:\\; $d | ri -r -fo')).toBe('C:\\* | ri');
    expect(refuses('$d = gci C:\\; foreach ($x in $d) { ri -r $x }')).toBe('ri C:\\*');
    expect(refuses('$d = Get-ChildItem C:\\Users\nforeach ($x in $d) { Remove-Item -Recurse -Force $x.FullName }')).toBe('Remove-Item C:\\Users\\*');
    expect(refuses('$d = gci ~; $d | % { ri -r $_.FullName }')).toBe('ri ~\\*');
    expect(refuses('$items = @(gci C:\\Windows); Remove-Item -Recurse $items')).toBe('Remove-Item C:\\Windows\\*');
    expect(refuses("$d = (Get-Item C:\\Users\\u); ri -r $d")).toBe('ri C:\\Users\\u');
    expect(refuses("$d = gci C:\\ | ? { $_.Name -ne 'x' }; $d | % { ri -r $_ }")).toBe('ri C:\\*');
    expect(refuses('$d = gci C:\\; $d | sort | Remove-Item -Recurse')).toBe('C:\\* | Remove-Item');
  });

  it('reads a command whose output is assigned to a variable: it runs all the same', () => {
    expect(refuses('$x = ri -r C:\\')).toBe('ri C:\\');
    expect(refuses('$x = Remove-Item -Recurse -Force $env:USERPROFILE')).toBe('Remove-Item C:\\Users\\u');
    expect(refuses('function f { ri -r $args }; $x = f C:\\')).toBe('ri C:\\');
    expect(refuses('sal x ri; $y = x -r C:\\')).toBe('ri C:\\');
    expect(refuses('$x = gci C:\\ | ri -r')).toBe('gci C:\\ | ri');
    expect(refuses('$x = ri -r .\\build')).toBeNull();
    expect(refuses('$out = git clean -fdx; $n = 5; $s = "C:\\"')).toBeNull();
  });

  it('reads a listing saved by -OutVariable or Tee-Object -Variable, and an item of a saved listing by its index', () => {
    expect(refuses('gci C:\\ -OutVariable t; $t | ri -r')).toBe('C:\\* | ri');
    expect(refuses('gci C:\\ -ov +t | Out-Null; foreach ($x in $t) { ri -r $x }')).toBe('ri C:\\*');
    expect(refuses('gci C:\\ | Tee-Object -Variable t | Out-Null; $t | ri -r')).toBe('C:\\* | ri');
    expect(refuses('$items = gci C:\\; ri -r $items[0]')).toBe('ri C:\\*');
    expect(refuses('$items = gci ~; ri -r $items[-1]')).toBe('ri ~\\*');
    // .Delete($true) of such an item deletes it as ri -r does.
    expect(refuses('$items = gci C:\\; $items[0].Delete($true)')).toBe('Delete C:\\*');
    expect(refuses('$items = gci C:\\; $items[-1].Delete($true)')).toBe('Delete C:\\*');
    expect(refuses('gci ~ -ov t | Out-Null; $t[1].Delete($true)')).toBe('Delete ~\\*');
    expect(refuses('$items = gci C:\\build; $items[0].Delete($true)')).toBeNull();
  });

  it('lets a listing of a folder below the trees, saved to a variable, through', () => {
    for (const command of ['gci C:\\build -ov t; $t | ri -r', '$items = gci C:\\; $items = "x"; ri -r $items[0]', '$d = gci .\\dist; $d | ri -r', '$d = gci C:\\build; foreach ($x in $d) { ri -r $x }', "$d = gci C:\\; $d | % { $_.Name }", '$d = gci C:\\; $d = 5; $d | ri -r']) {
      expect(refuses(command), command).toBeNull();
    }
  });

  it('reads a call of a PowerShell function as its body run with what the call gives it', () => {
    expect(refuses('function f($p){ ri -r -fo $p }; f C:\\')).toBe('ri C:\\');
    expect(refuses('function f { ri -r -fo $args[0] }; f C:\\')).toBe('ri C:\\');
    expect(refuses('function f { param($p) ri -r -fo $p }; f C:\\')).toBe('ri C:\\');
    expect(refuses('function f {\n  param([Parameter(Mandatory=$true)][string]$Path)\n  Remove-Item -Recurse -Force $Path\n}\nf -Path $env:USERPROFILE')).toBe('Remove-Item C:\\Users\\u');
    expect(refuses('function f([switch]$Force, $p){ ri -r $p }; f -Force C:\\Windows')).toBe('ri C:\\Windows');
    expect(refuses('function f($a, $b){ ri -r $b }; f -b:~ x')).toBe('ri ~');
    expect(refuses('function global:Clean-All { ri -r $args }; Clean-All x C:\\')).toBe('ri C:\\');
    expect(refuses('function f { ri -r @args }; f C:\\')).toBe('ri C:\\');
    expect(refuses('$a = "C:\\Windows"; ri -r @a')).toBe('ri C:\\Windows');
    expect(refuses("function f($p){ ri -r $p }; gci C:\\ | % { f $_.FullName }")).toBe('ri C:\\*');
    // A function calling another, and one defined inside a body.
    expect(refuses('function a($p){ ri -r $p }; function b($q){ a $q }; function c($r){ b $r }; function d($s){ c $s }; function e($t){ d $t }; e C:\\')).toBe('ri C:\\');
    expect(refuses('function outer { function inner($p) { ri -r $p }; inner $args[0] }; outer C:\\Users')).toBe('ri C:\\Users');
    // A script block saved to a variable and run.
    expect(refuses('$sb = { param($p) ri -r $p }; & $sb C:\\')).toBe('ri C:\\');
  });

  it('reads a function defined again, maybe only in a child scope (& { … }), as either definition', () => {
    expect(refuses('function f { ri -r $args }; & { function f { Get-Date } }; f C:\\')).toBe('ri C:\\');
    expect(refuses('function f { ri -r $args }; function g { function f { Get-Date } }; g; f C:\\')).toBe('ri C:\\');
    expect(refuses('function f { Get-Date }; function f { ri -r $args }; f C:\\')).toBe('ri C:\\');
    expect(refuses('function f { ri -r $args }; function f { Get-Date }; f .\\build')).toBeNull();
  });

  it('reads functions written with the { on the next line, attributes before param(), parameter aliases, or defined as function: items', () => {
    expect(refuses('function f\n{ ri -r $args[0] }\nf C:\\')).toBe('ri C:\\');
    expect(refuses('function Remove-All\n{\n  param($p)\n  Remove-Item -Recurse -Force $p\n}\nRemove-All ~')).toBe('Remove-Item ~');
    expect(refuses('function f { [CmdletBinding()] param($p) ri -r $p }; f C:\\')).toBe('ri C:\\');
    expect(refuses("function f { param([Alias('Path')]$p) ri -r $p }; f -Path C:\\")).toBe('ri C:\\');
    expect(refuses('function f { ri -r $args[1] }; f -x C:\\')).toBe('ri C:\\');
    expect(refuses('${function:f} = { ri -r $args[0] }; f C:\\')).toBe('ri C:\\');
    expect(refuses('$function:f = { ri -r $args[0] }; f C:\\')).toBe('ri C:\\'); // the same variable without braces
    expect(refuses('Set-Item function:f { ri -r $args[0] }; f C:\\Windows')).toBe('ri C:\\Windows');
  });

  it('reads a block saved to a variable run by .Invoke(), Invoke-Command or in a pipeline with & { process { … } }', () => {
    expect(refuses('$sb = { ri -r $args[0] }; $sb.Invoke("C:\\")')).toBe('ri C:\\');
    expect(refuses('$sb = { param($p) ri -r $p }; Invoke-Command -ScriptBlock $sb -ArgumentList C:\\')).toBe('ri C:\\');
    expect(refuses('$sb = { ri -r $args[0] }; icm $sb -Args ~')).toBe('ri ~');
    expect(refuses('gci C:\\ | & { process { ri -r $_ } }')).toBe('ri C:\\*');
    expect(refuses('gci ~ | . { process { ri -r $_ } }')).toBe('ri ~\\*');
  });

  it('reads a command called by an alias the text sets as the command it names', () => {
    expect(refuses('Set-Alias x Remove-Item; x -r -fo C:\\')).toBe('Remove-Item C:\\');
    expect(refuses('sal -Name nuke -Value f; function f($p){ ri -r $p }; nuke C:\\')).toBe('ri C:\\');
    expect(refuses('nal x ri -Scope Global; gci C:\\ | x -r')).toBe('gci C:\\ | ri');
    expect(refuses('Set-Alias y Remove-Item; Set-Alias x y; x -Recurse ~')).toBe('Remove-Item ~');
    // PowerShell looks an alias up when it is called: one set to an alias defined later names it too.
    expect(refuses('Set-Alias x y; Set-Alias y Remove-Item; x -Recurse ~')).toBe('Remove-Item ~');
    expect(refuses('sal x y; sal y z; sal z ri; x -r C:\\')).toBe('ri C:\\');
    expect(refuses('sal x y; sal y x; x -r C:\\')).toBeNull(); // a loop: PowerShell runs neither
    // An alias set again, maybe only in a child scope, may name either command.
    expect(refuses('sal x ri; & { sal x Get-Date }; x -r C:\\')).toBe('ri C:\\');
    expect(refuses('sal x ri; function g { sal x Get-Date }; g; x -r C:\\')).toBe('ri C:\\');
    expect(refuses('sal x Get-Date; sal x Get-Item; x -r C:\\')).toBeNull();
    expect(refuses(Array.from({ length: 12 }, (_, i) => `Set-Alias a${i + 1} a${i}`).join('; ').replace('a0', 'Remove-Item') + '; a12 -r C:\\')).toBe('Remove-Item C:\\');
  });

  it('reads what is piped into a function or filter as its $_, $input and parameters', () => {
    expect(refuses('filter f { ri -r -fo $_ }; gci C:\\ | f')).toBe('ri C:\\*');
    expect(refuses('function f { process { ri -r $_ } }; gci ~ | f')).toBe('ri ~\\*');
    expect(refuses('function f { $input | ri -r }; gci ~ | f')).toBe('~\\* | ri');
    expect(refuses('function f { param([Parameter(ValueFromPipeline)]$p) process { ri -r $p } }; gci C:\\Users | ? { $_ } | f')).toBe('ri C:\\Users\\*');
    expect(refuses("function f { process { ri -r $_ } }; 'C:\\' | f")).toBe('ri C:\\');
  });

  it("reads what a function lists as its result: piped, looped over or saved", () => {
    expect(refuses('function g { gci C:\\ }; g | ri -r')).toBe('C:\\* | ri');
    expect(refuses('function g($p) { gci $p }; g C:\\Windows | ri -r')).toBe('g C:\\Windows\\* | ri');
    expect(refuses('function g { gci C:\\ }; g | % { ri -r $_ }')).toBe('ri C:\\*');
    expect(refuses('function g { return (Get-ChildItem C:\\Users) }; $d = g; $d | ri -r')).toBe('C:\\Users\\* | ri');
    expect(refuses('function g($p) { gci $p | ? { $_ } }; foreach ($x in g C:\\) { ri -r $x }')).toBe('ri C:\\*');
  });

  it('refuses calls nested too deep or too many to read in time, and reads them in near-linear time', () => {
    const n = 20_000;
    const timed = (text: string) => {
      const started = performance.now();
      const found = refuses(text);
      return { found, ms: performance.now() - started };
    };
    // 10,000 definitions, each calling the one before: 300 KB of text.
    const chain = timed(Array.from({ length: n / 2 }, (_, i) => `function f${i}($p){ f${i - 1} $p }`).join(';') + `;function f-1($p){ ri -r $p };f${n / 2 - 1} C:\\`);
    expect(chain.found).toMatch(/calls nested too deep to be read/);
    expect(timed(Array.from({ length: 30 }, (_, i) => `function f${i + 1} { f${i}; f${i} }`).join('; ') + '; function f0 { ri -r x }; f30').found).toMatch(/run too often to be read/);
    const shapes = [
      // At 20,000 or less of each: the machine the tests run on may be busy, and the text alone takes time to read.
      // 2,500 each defined and called: the text alone, 100 KB, takes a good part of the time to read.
      Array.from({ length: n / 8 }, (_, i) => `function f${i}($p){ri -r $p};f${i} x${i}`).join(';'),
      // 20,000 calls of one function.
      'function f($p){ ri -r $p }; ' + 'f x; '.repeat(n),
      'function f { '.repeat(n / 2) + '}'.repeat(n / 2) + '; f',
      'function g { gci C:\\build }; ' + 'g | ri -r; '.repeat(n / 4),
      'function f($p){ ri -r $p }; f ' + 'a'.repeat(100_000),
      'function f { ri -r $args }; f ' + 'a '.repeat(n / 2),
      `function f(${Array.from({ length: n / 2 }, (_, i) => `$p${i}`).join(',')}){ ri -r $p0 }; f ${'a '.repeat(n / 2)}`,
      'gci C:\\build | ' + '? { $_ } | '.repeat(n / 4) + '% { ri -r $_ }',
      '$x' + '.Delete('.repeat(n / 2) + ')'.repeat(n / 2),
      'gci x | ' + 'ri | '.repeat(n / 2) + 'ri',
      Array.from({ length: n / 2 }, (_, i) => `Set-Alias a${i + 1} a${i}`).join(';') + `;a${n / 2} -r C:\\`,
      Array.from({ length: n / 4 }, (_, i) => `sal a${i} a${i + 1}`).join(';') + `;sal a${n / 4} ri;` + 'a0 -r x;'.repeat(n / 4),
      '(gi x)' + '.Where({ $_ })'.repeat(n / 2) + '.ForEach({ ri -r $_ })',
      // Each group is text of its own, read again for each level it is in.
      '(gi x).Delete($true);'.repeat(n / 8),
      '[scriptblock]::Create('.repeat(n / 8) + "'x'" + ')'.repeat(n / 8),
      Array.from({ length: n / 4 }, (_, i) => `$v${i} = gci x${i}`).join(';') + '; function f($p){ ri -r $p }; ' + 'f x; '.repeat(n / 2),
    ];
    // As elsewhere in this file, 5 s leaves room for a busy machine; what these shapes guard against is a reading that grows with their square.
    for (const text of [chain, ...shapes.map(timed)]) expect(text.ms).toBeLessThan(5_000);
  });

  it('lets functions that remove below the trees through', () => {
    for (const command of [
      'function clean($p){ ri -r $p }; clean C:\\build',
      'function f { ri -r @args }; f C:\\build',
      'git log --author=ana@example.com',
      'function clean { param($p) Remove-Item -Recurse -Force $p }; clean .\\dist; clean C:\\Users\\u\\project\\out',
      'function f($n){ if ($n) { f $n } }; f 3', // calls itself with the same: read once
      'function f($p){ Write-Output $p }; f C:\\',
      'function g { gci C:\\build }; g | ri -r',
      'function f($p){ ri -r $p }', // never called
      'filter f { $_.Name }; gci C:\\ | f',
    ]) {
      expect(refuses(command), command).toBeNull();
    }
  });

  it('reads text made into a script block as the command it holds, run or not', () => {
    expect(refuses("[scriptblock]::Create('ri -r -fo C:\\').Invoke()")).toBe('ri C:\\');
    expect(refuses("& ([scriptblock]::Create('ri -r -fo C:\\'))")).toBe('ri C:\\');
    expect(refuses('$s = "ri -r ~"; $sb = [ScriptBlock]::Create($s); & $sb')).toBe('ri ~');
    expect(refuses("Invoke-Command -ScriptBlock ([System.Management.Automation.ScriptBlock]::Create('rd /s /q C:\\'))")).toBe('rd C:\\');
    expect(refuses("$ExecutionContext.InvokeCommand.InvokeScript('ri -r C:\\Windows')")).toBe('ri C:\\Windows');
    expect(refuses("$ExecutionContext.InvokeCommand.NewScriptBlock(\"ri -r $env:USERPROFILE\").Invoke()")).toBe('ri C:\\Users\\u');
  });

  it('reads a folder deleted with all it holds by .NET: .Delete($true), [IO.Directory]::Delete, DeleteDirectory', () => {
    expect(refuses('(Get-Item C:\\Users\\u).Delete($true)')).toBe('Delete C:\\Users\\u');
    expect(refuses("[IO.Directory]::Delete('C:\\', $true)")).toBe('Delete C:\\');
    expect(refuses('[System.IO.Directory]::Delete("$env:USERPROFILE", 1)')).toBe('Delete C:\\Users\\u');
    expect(refuses('gci C:\\ | % { $_.Delete($true) }')).toBe('Delete C:\\*');
    expect(refuses('$d = gi ~; $d.Delete($true)')).toBe('Delete ~');
    expect(refuses('foreach ($d in gci C:\\Windows) { $d.Delete($true) }')).toBe('Delete C:\\Windows\\*');
    expect(refuses('(gci C:\\).Delete($true)')).toBe('Delete C:\\*');
    expect(refuses("([IO.DirectoryInfo]'C:\\Windows').Delete($true)")).toBe('Delete C:\\Windows');
    expect(refuses("[IO.DirectoryInfo]::new('C:\\').Delete($true)")).toBe('Delete C:\\');
    expect(refuses("[Microsoft.VisualBasic.FileIO.FileSystem]::DeleteDirectory('C:\\Users\\u', 'DeleteAllContents')")).toBe('Delete C:\\Users\\u');
  });

  it('reads the .ForEach({ … }) method with each item of what it is called on, past .Where({ … })', () => {
    expect(refuses("(gci C:\\).Where({ $_.Name -ne 'x' }).ForEach({ ri -r $_ })")).toBe('ri C:\\*');
    expect(refuses('(gci ~).ForEach({ ri -r $_.FullName })')).toBe('ri ~\\*');
    expect(refuses('$d = gci C:\\Users; $d.ForEach({ ri -r $_ })')).toBe('ri C:\\Users\\*');
    expect(refuses("@('C:\\').ForEach({ ri -r $_ })")).toBe('ri C:\\');
    expect(refuses('(gci C:\\).where({$_}).where({$_}).foreach({ $_.Delete($true) })')).toBe('Delete C:\\*');
  });

  it('reads ForEach-Object calling Delete with $true on each item', () => {
    expect(refuses('gci C:\\ | % Delete $true')).toBe('Delete C:\\*');
    expect(refuses('gci ~ | ForEach-Object -MemberName Delete -ArgumentList $true')).toBe('Delete ~\\*');
  });

  it('lets script blocks and deletes below the trees, or of an empty folder only, through', () => {
    for (const command of [
      "[scriptblock]::Create('ri -r C:\\build').Invoke()",
      "[scriptblock]::Create('Write-Output C:\\')",
      '(Get-Item C:\\build).Delete($true)',
      '(gi C:\\Users\\u).Delete()', // only an empty folder
      '(gi C:\\Users\\u).Delete($false)',
      "[IO.Directory]::Delete('C:\\')",
      'gci C:\\build | % Delete $true',
      '$sb = { ri -r $args[0] }; $sb.InvokeReturnAsIs("C:\\build")',
      'gci C:\\build | & { process { ri -r $_ } }',
      'Remove-Item C:\\Users\\u\\* -Include *.tmp -Recurse',
      'gci C:\\ | % Delete', // only empty folders
      'Set-Alias x Remove-Item; x -r C:\\build',
      'Set-Alias a b; Set-Alias b a; a -r C:\\',
      "New-Alias -Name x -Value rd; cmd /c \"x /s /q C:\\\"\"", // cmd does not know PowerShell's aliases
      '(gci C:\\build).ForEach({ ri -r $_ })',
      '(gci C:\\).ForEach({ $_.Name })',
      'ri -r -fo C:\\build',
      "[IO.Directory]::Delete('C:\\Users\\u\\tmp', $true)",
      'gci .\\dist | % { $_.Delete($true) }',
      "[Microsoft.VisualBasic.FileIO.FileSystem]::DeleteDirectory('C:\\Windows', 'ThrowIfDirectoryNonEmpty')",
    ]) {
      expect(refuses(command), command).toBeNull();
    }
  });

  it('lets filtered listings of folders below the trees through', () => {
    for (const command of [
      'gci C:\\build | % { ri -r $_.FullName }',
      "gci C:\\build | ? { $_.Name -ne 'keep' } | % { ri -r $_.FullName }",
      'gci .\\dist | sort | select -First 2 | Remove-Item -Recurse',
      'gci C:\\build | % { $_.FullName } | ri -r',
      'Get-Content list.txt | % { $_.Trim() } | ri -r',
      'Remove-Item -Recurse -Path (gci C:\\build) -ErrorAction SilentlyContinue',
      'gci C:\\ | ? { $_.PSIsContainer } | % { $_.Name }',
      'Get-ChildItem C:\\ | Select-Object Name',
    ]) {
      expect(refuses(command), command).toBeNull();
    }
  });
});

describe('windowsTreeCommand: what is allowed', () => {
  it('lets ordinary removals below the trees through', () => {
    for (const command of [
      'Remove-Item -Recurse .\\build',
      'rm -r -fo node_modules',
      'rd /s /q C:\\Users\\ana\\project\\dist',
      'Get-ChildItem C:\\Users\\ana\\Downloads -Filter *.tmp | Remove-Item',
      'icacls C:\\Users\\ana\\project /grant ana:F',
      "Write-Output 'C:\\'",
      'Write-Output "Remove-Item -Recurse C:\\"',
      "Write-Host 'rd /s /q C:\\Windows'",
      '# Remove-Item -Recurse C:\\',
      'Remove-Item C:\\', // no -Recurse: it stops at the first folder that has anything in it
      'Remove-Item C:\\Users\\ana -Recurse -WhatIf',
      'Remove-Item -Recurse:$false ~',
      'Remove-Item C:\\* -Include *.tmp -Recurse',
      'Remove-Item -Recurse -Force C:\\Users\\ana\\AppData\\Local\\Temp\\*',
      'Remove-Item -Recurse C:\\Windows\\Temp\\*',
      'Remove-Item -Recurse "C:\\Program Files\\OldApp"',
      'Remove-Item -Recurse $env:TEMP\\build',
      'Remove-Item -Recurse (Join-Path $env:USERPROFILE cache)',
      'del C:\\Users\\ana\\*.log',
      'del /s /q C:\\Users\\ana\\project\\*.obj',
      'cmd /c "rd /s /q dist"',
      'cmd /c "echo ^& rd /s /q C:\\"', // the caret makes & a character echo writes
      'cmd /c "dir /s /b C:\\ | findstr tmp"',
      'Remove-Item -Recurse .\\dist *> C:\\Users\\ana',
      'rd /s /q dist >nul 2>&1',
      'takeown /f C:\\Windows\\System32\\drivers\\etc\\hosts',
      'takeown /f C:\\Users\\ana\\project /r',
      'icacls C:\\ /grant ana:F', // no /t: only the folder itself
      'icacls C:\\Windows /save acl.txt /t', // saves, changes nothing
      'Get-ChildItem C:\\ | Select-Object Name',
      'Get-Item C:\\Users\\ana\\project\\dist | Remove-Item -Recurse',
      'Get-ChildItem C:\\ -Recurse -Filter *.log | Remove-Item',
      'Get-ChildItem C:\\Users\\ana\\project\\dist | Remove-Item -Recurse',
      'cd C:\\Users\\ana\\project; Remove-Item -Recurse -Force *',
      'Set-Location $env:TEMP; Remove-Item -Recurse *',
      "$d = 'C:\\Users\\ana\\project\\out'; Remove-Item -Recurse $d",
      'powershell -File C:\\Users\\ana\\clean.ps1 C:\\',
      'Copy-Item -Recurse C:\\Windows\\Fonts\\arial.ttf .',
      'npm run build; Remove-Item -Recurse -Force .\\dist, .\\coverage',
      'Remove-Item -Recurse C:build', // from the folder last used on C:, not C:\\
      "Remove-Item -Recurse 'C:\\$Recycle.Bin\\x'",
    ]) {
      expect(wipes(command), command).toBeNull();
    }
  });

  it('reads no relative target when the folder it runs in is not known', () => {
    expect(wipes('Remove-Item -Recurse -Force *', null)).toBeNull();
    expect(wipes('popd; Remove-Item -Recurse *')).toBeNull();
    expect(wipes('cd $env:TEMP\\..; Remove-Item -Recurse *')).toBeNull();
  });

  it('stays linear on long and hostile text', () => {
    const started = performance.now();
    wipes(`Remove-Item -Recurse ${'C:\\*a'.repeat(5_000)}`);
    wipes('('.repeat(20_000));
    wipes('${'.repeat(20_000));
    wipes(`cmd /c ${'%a'.repeat(20_000)}`);
    wipes(`Remove-Item ${'-r '.repeat(20_000)}`);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('isWindowsWholeTree', () => {
  it('compares in any case with either slash, and nothing below the trees', () => {
    expect(isWindowsWholeTree('c:/PROGRAM FILES (X86)/', HOME)).toBe(true);
    expect(isWindowsWholeTree('C:\\Users\\ana\\', HOME)).toBe(true);
    expect(isWindowsWholeTree('D:\\Users\\Public', HOME)).toBe(true);
    expect(isWindowsWholeTree('C:\\Users\\ana\\Documents', HOME)).toBe(false);
    expect(isWindowsWholeTree('C:\\Windows\\System32', HOME)).toBe(false);
    expect(isWindowsWholeTree('C:\\Program Files\\Git', HOME)).toBe(false);
    expect(isWindowsWholeTree('HKLM:\\SOFTWARE', HOME)).toBe(false);
    expect(isWindowsWholeTree('build', HOME)).toBe(false);
  });
});

describe('windowsTreeCommand: values built, splatted, collected or computed', () => {
  /** As the never-run rule is measured: home and the folder it runs in are C:\\Users\\u. */
  const refuses = (text: string) => windowsTreeCommand(text, 'C:\\Users\\u', 'C:\\Users\\u');

  it('reads an array set in an assignment as the item that takes a whole tree: removed, piped, looped over or indexed', () => {
    expect(refuses("$a = @('C:\\'); ri -r -fo $a")).toBe('ri C:\\');
    expect(refuses("$a = 'x', 'C:\\'; $a | ri -r")).toBe('C:\\ | ri');
    expect(refuses("$a = 'x', 'C:\\'; foreach ($p in $a) { ri -r $p }")).toBe('ri C:\\');
    expect(refuses("$a = 'x', 'C:\\'; ri -r $a[1]")).toBe('ri C:\\');
    expect(refuses("$a = @('build'\n  $env:USERPROFILE); ri -r $a")).toBe('ri C:\\Users\\u');
  });

  it('reads a hashtable splatted into Remove-Item as its parameters', () => {
    expect(refuses("$p = @{ Path = 'C:\\'; Recurse = $true }; Remove-Item @p")).toBe('Remove-Item C:\\');
    expect(refuses("$p = [ordered]@{ LiteralPath = 'C:\\'; Recurse = $true }; Remove-Item @p")).toBe('Remove-Item C:\\');
    expect(refuses('$p = @{\n  LiteralPath = "$env:USERPROFILE"\n  Recurse = $true\n}\nRemove-Item @p -Force')).toBe('Remove-Item C:\\Users\\u');
    expect(refuses("$h = @{ Path = 'C:\\Windows' }; ri -r @h")).toBe('ri C:\\Windows');
    expect(refuses("$p = @{ 'Path' = (Join-Path $HOME ''); Recurse = $r }; ri @p")).toBe('ri C:\\Users\\u\\');
  });

  it('reads what a loop or a pipeline in parentheses collects into a variable as what it may write', () => {
    expect(refuses('$d = foreach ($x in gci C:\\) { $x.FullName }; $d | ri -r')).toBe('C:\\* | ri');
    expect(refuses('$d = (gci C:\\ | % FullName); $d | ri -r')).toBe('C:\\* | ri');
    expect(refuses("$d = if ($y) { 'C:\\' } else { 'x' }; ri -r $d")).toBe('ri C:\\');
    // The block runs with each item too, and what follows an assignment runs.
    expect(refuses('$d = foreach ($x in gci C:\\) { ri -r $x }')).toBe('ri C:\\*');
    expect(refuses('$d = Remove-Item -Recurse C:\\Windows')).toBe('Remove-Item C:\\Windows');
    expect(refuses("$d = 'C:\\' | ri -r")).toBe('C:\\ | ri');
  });

  it('reads $( … ) and ( … ) as their value where it is known, and what they run before the command around them', () => {
    expect(refuses('ri -r -fo "$(Get-Location)"')).toBe('ri c:\\users\\u');
    expect(refuses('ri -r (Get-Location).Path')).toBe('ri c:\\users\\u');
    expect(refuses('echo $(cd C:\\); ri -r -fo Windows')).toBe('ri Windows');
    expect(refuses('$null = (Set-Location C:\\); ri -r Users')).toBe('ri Users');
    expect(refuses("ri -r ($p = 'C:\\')")).toBe('ri C:\\');
    expect(refuses("($p = 'C:\\Windows'); ri -r $p")).toBe('ri C:\\Windows');
  });

  it('reads variables set in other ways, and paths Join-Path, Split-Path, Combine and Resolve-Path make', () => {
    expect(refuses("Set-Variable p 'C:\\'; ri -r $p")).toBe('ri C:\\');
    expect(refuses('New-Variable -Name p -Value C:\\; ri -r $p')).toBe('ri C:\\');
    expect(refuses("sv -Name p -Value 'x','C:\\Windows'; ri -r $p")).toBe('ri C:\\Windows');
    expect(refuses("[string]$p = 'C:\\'; ri -r $p")).toBe('ri C:\\');
    expect(refuses("$p += 'C:\\'; ri -r $p")).toBe('ri C:\\');
    expect(refuses("$a = $b = 'C:\\'; ri -r $b")).toBe('ri C:\\');
    expect(refuses('ri -r (Join-Path C:\\ *)')).toBe('ri C:\\*');
    expect(refuses("ri -r (Join-Path $HOME '')")).toBe('ri C:\\Users\\u\\');
    expect(refuses("ri -r ([IO.Path]::Combine('C:\\', ''))")).toBe('ri C:\\');
    expect(refuses("ri -r ([System.IO.Path]::Combine('C:\\build', '\\'))")).toBe('ri \\');
    expect(refuses('ri -r (Split-Path C:\\x -Parent)')).toBe('ri C:\\');
    expect(refuses('ri -r (Split-Path -Path C:\\Windows\\x)')).toBe('ri C:\\Windows');
    expect(refuses('ri -r (Split-Path C:\\x -Qualifier)')).toBe('ri C:');
    expect(refuses('$p = Resolve-Path ~; ri -r $p')).toBe('ri ~');
  });

  it('reads @( … ) as an operand, a hashtable or an array changed in place, and what a pipeline or & { … } collects', () => {
    expect(refuses("ri -r @('x','C:\\')")).toBe('ri C:\\');
    expect(refuses("$p = @{ Path = 'C:\\' }; $p.Recurse = $true; ri @p")).toBe('ri C:\\');
    expect(refuses("$p = @{ Recurse = $true }; $p['Path'] = 'C:\\'; ri @p")).toBe('ri C:\\');
    expect(refuses("$p = @{ Recurse = $true; Path = 'C:\\' }; $p.Path = 'build'; ri @p")).toBe('ri C:\\');
    expect(refuses("$p = @{ Recurse = $true }; $p.Add('Path', 'C:\\Windows'); ri @p")).toBe('ri C:\\Windows');
    expect(refuses("$a = @('x'); $a[0] = 'C:\\'; ri -r $a")).toBe('ri C:\\');
    expect(refuses("$l = [System.Collections.Generic.List[string]]::new(); $l.Add('C:\\'); ri -r $l")).toBe('ri C:\\');
    expect(refuses("$d = 1..2 | % { 'C:\\' }; ri -r $d")).toBe('ri C:\\');
    expect(refuses("$d = 'x' | ? { $_ } | % { $HOME }; $d | ri -r")).toBe('C:\\Users\\u | ri');
    expect(refuses("$d = & { 'C:\\' }; ri -r $d")).toBe('ri C:\\');
    expect(refuses("$d = Invoke-Command { 'C:\\Windows' }; ri -r $d")).toBe('ri C:\\Windows');
  });

  it('reads strings joined with + or filled by -f, $PWD.Path, and the paths .NET gives of known values', () => {
    expect(refuses('ri -r $PWD.Path')).toBe('ri c:\\users\\u');
    expect(refuses("$p = $env:SystemDrive + '\\'; ri -r $p")).toBe('ri C:\\');
    expect(refuses("ri -r ('{0}\\' -f 'C:')")).toBe('ri C:\\');
    expect(refuses("$p = '{0}\\{1}' -f $HOME, '*'; ri -r $p")).toBe('ri C:\\Users\\u\\*');
    expect(refuses("$a = @('build') + 'C:\\'; ri -r $a")).toBe('ri C:\\');
    expect(refuses("ri -r ([Environment]::GetFolderPath('UserProfile'))")).toBe('ri ~');
    expect(refuses('ri -r ([Environment]::GetFolderPath([Environment+SpecialFolder]::Windows))')).toBe('ri C:\\Windows');
    expect(refuses('ri -r ([IO.Path]::GetPathRoot($HOME))')).toBe('ri C:\\');
    expect(refuses("ri -r ([System.IO.Path]::GetDirectoryName('C:\\Windows\\x'))")).toBe('ri C:\\Windows');
    expect(refuses('ri -r ([IO.Directory]::GetCurrentDirectory())')).toBe('ri c:\\users\\u');
  });

  it('reads a variable named with its scope, and one read by Get-Variable -ValueOnly or GetEnvironmentVariable', () => {
    expect(refuses("$global:p = 'C:\\'; ri -r $global:p")).toBe('ri C:\\');
    expect(refuses("$p = 'C:\\Windows'; ri -r \"$($script:p)\"")).toBe('ri C:\\Windows');
    expect(refuses("$p = 'C:\\'; ri -r (Get-Variable p -ValueOnly)")).toBe('ri C:\\');
    expect(refuses("$p = 'C:\\'; ri -r (gv -Name p -ValueOnly)")).toBe('ri C:\\');
    expect(refuses("ri -r ([Environment]::GetEnvironmentVariable('USERPROFILE'))")).toBe('ri C:\\Users\\u');
  });

  it('reads an item taken by a computed index as any item, a value piped into a path command, and a cast value', () => {
    expect(refuses("$i = 1; $a = 'x','C:\\'; ri -r $a[$i]")).toBe('ri C:\\');
    expect(refuses('ri -r ($HOME | Split-Path)')).toBe('ri C:\\Users');
    expect(refuses("ri -r ('C:\\Windows\\x' | Split-Path -Parent)")).toBe('ri C:\\Windows');
    expect(refuses('ri -r ($HOME | gci)')).toBe('ri C:\\Users\\u\\*');
    expect(refuses("$d = [System.IO.DirectoryInfo]'C:\\'; $d.Delete($true)")).toBe('Delete C:\\');
  });

  it('reads a list added to with its result dropped, an object made from a hashtable piped on, and an entry read by name', () => {
    expect(refuses("$l = New-Object System.Collections.ArrayList; [void]$l.Add('C:\\'); ri -r $l")).toBe('ri C:\\');
    expect(refuses("$null = $l.Add('C:\\Windows'); ri -r $l")).toBe('ri C:\\Windows');
    expect(refuses("$o = [pscustomobject]@{ Path = 'C:\\' }; $o | Remove-Item -Recurse")).toBe('C:\\ | Remove-Item');
    expect(refuses("$p = @{ Path = 'C:\\Windows' }; ri -r $p.Path")).toBe('ri C:\\Windows');
    expect(refuses("$p = @{}; $p.Path = 'C:\\Users'; ri -r $p.Path")).toBe('ri C:\\Users');
    expect(refuses('function f { $p = @{ Path = $args[0]; Recurse = $true }; ri @p }; f C:\\')).toBe('ri C:\\');
  });

  it('reads a cast to an array type before a value or a variable', () => {
    expect(refuses("Remove-Item -Recurse -LiteralPath ([string[]]@('C:\\'))")).toBe('Remove-Item C:\\');
    expect(refuses("[string[]]$p = 'x', 'C:\\'; ri -r $p")).toBe('ri C:\\');
    expect(refuses("$p = [string[]]@('C:\\Windows'); ri -r $p")).toBe('ri C:\\Windows');
  });

  it("reads cmd's set as the value the variable may have after it, with %…% or delayed !…!", () => {
    expect(refuses('cmd /c "set P=C:\\ && rd /s /q %P%"')).toBe('rd C:\\');
    expect(refuses('cmd /v:on /c "set P=C:\\Windows&& rd /s /q !P!"')).toBe('rd C:\\Windows');
    expect(refuses("cmd /c 'set \"P=C:\\Users\\u\" & rd /s /q %P%'")).toBe('rd C:\\Users\\u');
  });

  it('reads the parent of a known item (.Parent, .Directory) and its root (.Root) as that folder, used as a target or deleted', () => {
    expect(refuses('ri -r -fo (Get-Item ~\\x).Parent.FullName')).toBe('ri ~\\x\\..');
    expect(refuses('(Get-Item ~\\Documents).Parent.Delete($true)')).toBe('Delete ~\\Documents\\..');
    expect(refuses('(Get-Item C:\\Windows\\Temp).Parent.Delete($true)')).toBe('Delete C:\\Windows');
    expect(refuses('ri -r (Get-Item .).Parent')).toBe('ri .\\..');
    expect(refuses('$p = (gi ~\\x).Parent.FullName; ri -r -fo $p')).toBe('ri ~\\x\\..');
    expect(refuses('$d = Get-Item C:\\Windows\\Temp; $d.Parent.Delete($true)')).toBe('Delete C:\\Windows');
    expect(refuses('$d = (Get-Item ~\\x).Parent; $d.Delete($true)')).toBe('Delete ~\\x\\..');
    expect(refuses('(gi ~\\x\\y).Parent.Parent.Delete($true)')).toBe('Delete ~\\x\\y\\..\\..');
    expect(refuses('ri -r ((gi $HOME\\x.txt).Directory)')).toBe('ri C:\\Users\\u');
    expect(refuses('(Get-Item ~).Root.Delete($true)')).toBe('Delete \\');
    expect(refuses("ri -r (gi 'C:\\Program Files\\x').Root")).toBe('ri C:\\');
  });

  it('reads a variable named with its scope holding an item, a method then called on it', () => {
    expect(refuses('$global:d = Get-Item C:\\; $global:d.Delete($true)')).toBe('Delete C:\\');
    expect(refuses('$script:d = Get-Item C:\\; $script:d.Delete($true)')).toBe('Delete C:\\');
    expect(refuses('$local:d = gi ~; $local:d.Delete(1)')).toBe('Delete ~');
    expect(refuses('$global:d = Get-Item C:\\; $d.Delete($true)')).toBe('Delete C:\\');
    expect(refuses("$global:d = gci C:\\Windows; $global:d.ForEach({ ri -r $_ })")).toBe('ri C:\\Windows\\*');
  });

  it('reads a DirectoryInfo made by New-Object or ::new as its folder', () => {
    expect(refuses("(New-Object IO.DirectoryInfo 'C:\\Windows').Delete($true)")).toBe('Delete C:\\Windows');
    expect(refuses('(New-Object System.IO.DirectoryInfo $env:USERPROFILE).Delete($true)')).toBe('Delete C:\\Users\\u');
    expect(refuses("[IO.DirectoryInfo]::new('C:\\').Delete($true)")).toBe('Delete C:\\');
    expect(refuses('$d = New-Object IO.DirectoryInfo C:\\; $d.Delete($true)')).toBe('Delete C:\\');
    expect(refuses('$d = New-Object -TypeName IO.DirectoryInfo -ArgumentList C:\\Users; $d.Delete($true)')).toBe('Delete C:\\Users');
    expect(refuses("$d = [System.IO.DirectoryInfo]::new('C:\\ProgramData'); $d.Delete($true)")).toBe('Delete C:\\ProgramData');
    expect(refuses("ri -r -fo (New-Object IO.DirectoryInfo 'C:\\').FullName")).toBe('ri C:\\');
  });

  it('reads string methods and -replace of known values where the result is computed', () => {
    expect(refuses("$p = 'C:\\Windowsx'.Replace('x',''); ri -r -fo $p")).toBe('ri C:\\Windows');
    expect(refuses("ri -r -fo ('C:\\Windows ').Trim()")).toBe('ri C:\\Windows');
    expect(refuses("ri -r -fo 'C:\\WINDOWS'.ToLower()")).toBe('ri c:\\windows');
    expect(refuses("$p = 'C:\\Windowsx' -replace 'x',''; ri -r -fo $p")).toBe('ri C:\\Windows');
    expect(refuses("$p = 'C:\\WindowsX' -ireplace 'x'; ri -r -fo $p")).toBe('ri C:\\Windows');
    expect(refuses("$p = 'C:\\Windows\\x' -replace '\\\\x$', ''; ri -r $p")).toBe('ri C:\\Windows');
    expect(refuses("$p = 'C:\\Windows\\x'.Substring(0, 10); ri -r -fo $p")).toBe('ri C:\\Windows');
    expect(refuses("$p = 'C:\\Windows\\'.TrimEnd('\\'); ri -r -fo $p")).toBe('ri C:\\Windows');
    expect(refuses("$p = 'C:\\build'.Remove(3); ri -r $p")).toBe('ri C:\\');
    expect(refuses("$p = 'C:\\build'; ri -r $p.Replace('build', '')")).toBe('ri C:\\');
    expect(refuses("$p = '  ~  '; ri -r $p.Trim().ToUpper()")).toBe('ri ~');
    expect(refuses("ri -r ('C:\\bu' + 'ild').Replace('build', '')")).toBe('ri C:\\');
    expect(refuses("ri -r ($HOME -replace '\\\\x$')")).toBe('ri C:\\Users\\u');
  });

  it('reads a string cut by a method or -replace it cannot compute as possibly any of the first folders it is in', () => {
    expect(refuses("$p = 'C:\\Windows\\x' -replace '\\\\[^\\\\]+$', ''; ri -r $p")).toBe('ri C:\\');
    expect(refuses("$p = \"$HOME\\x\" -replace '\\\\[^\\\\]+$'; ri -r $p")).toBe('ri C:\\');
    expect(refuses("$p = 'build\\x' -replace $pattern, ''; ri -r $p")).toBeNull();
    expect(refuses("$p = 'C:\\build'.Substring(0, $n); ri -r $p")).toBe('ri C:\\');
    expect(refuses("ri -r ('~\\x').TrimEnd($c)")).toBe('ri ~');
    expect(refuses("$p = '~\\x'; ri -r $p.Replace($name, '')")).toBe('ri ~');
    expect(refuses("$p = '~\\x'; ri -r $p.Remove($i)")).toBe('ri ~');
  });

  it('reads a block saved to a variable and called with & and arguments as a function', () => {
    expect(refuses('$sb = { param($p) ri -r -fo $p }; & $sb C:\\')).toBe('ri C:\\');
    expect(refuses('$sb = { ri -r -fo $args[0] }; & $sb ~')).toBe('ri ~');
    expect(refuses('$sb = { param($p) ri -r $p }; & $sb -p C:\\Windows')).toBe('ri C:\\Windows');
    expect(refuses('$sb = { param($p) ri -r $p }; . $sb $HOME')).toBe('ri C:\\Users\\u');
  });

  it('lets parents, members and replacements that stay below the trees, or are not known, through', () => {
    for (const command of [
      'ri -r (Get-Item C:\\build\\x).Parent',
      '(Get-Item ~\\x\\y).Parent.Delete($true)',
      '(Get-Item C:\\).Parent.Delete($true)', // a root has no parent
      '(gi ~\\x).Parent.Delete()',
      "(New-Object IO.DirectoryInfo 'C:\\build').Delete($true)",
      "(New-Object IO.FileInfo 'C:\\Windows').Delete()",
      "$p = 'C:\\Windows\\Temp'.Replace('x', ''); ri -r $p",
      "$p = 'C:\\WindowsX' -creplace 'x', ''; ri -r $p", // case-sensitive: nothing replaced
      "ri -r 'C:\\build'.Trim()",
      "$p = 'build\\out'.Substring(0, $n); ri -r $p", // cut, it stays below the folder it runs in
      "$p = 'C:\\build' -replace $pattern, 'x'; ri -r $p", // replaced by something: not known
      "$p = 'C:\\build'.Replace($a, $b); ri -r $p",
      "$p = 'C:\\build\\'.TrimEnd('\\'); ri -r $p",
      "ri -r ('C:\\Windows\\x').Length",
      '$global:d = Get-Item C:\\build; $global:d.Delete($true)',
      '$sb = { param($p) ri -r $p }; & $sb C:\\build',
    ]) {
      expect(refuses(command), command).toBeNull();
    }
  });

  it('lets values below the trees through', () => {
    for (const command of [
      'ri -r -fo C:\\build',
      "$a = @('C:\\build', '.\\dist'); ri -r $a",
      "$p = @{ Path = 'C:\\build'; Recurse = $true }; Remove-Item @p",
      "$p = @{ Path = 'C:\\'; Recurse = $false }; Remove-Item @p",
      "$p = @{ Path = 'C:\\' }; Remove-Item @p",
      "ri -r (Join-Path $HOME 'build')",
      '$d = foreach ($x in gci C:\\build) { $x.FullName }; $d | ri -r',
      'cd C:\\build; ri -r "$(Get-Location)"',
      'ri -r -fo "$(Get-Location)\\build"',
      'ri -r (Split-Path C:\\x\\y)',
      "$p = 'C:\\build'; $p += '\\out'; ri -r $p",
      '$x = $(cd C:\\build); ri -r *',
      'cmd /c "set P=C:\\build && rd /s /q %P%"',
      'cmd /c "set /p P=Folder: && rd /s /q %P%"',
      "$a = 'C:\\'; $a = 'build'; ri -r $a",
      "$p = @{ Path = 'C:\\'; Recurse = $true }; $p = @{ Path = 'build'; Recurse = $true }; Remove-Item @p",
      "Set-Variable p 'C:\\'; Set-Variable p build; ri -r $p",
      "foreach ($d in 'build','dist') { Remove-Item -Recurse $d }",
      "function f { param($p = 'x') ri -r $p }; f build",
      "$p = @{ Path = 'C:\\build' }; $p.Recurse = $true; ri @p",
      "$d = gci C:\\build | % { $_.FullName }; $d | ri -r",
      "$d = & { 'build' }; ri -r $d",
      "$a = @('x'); $a[0] = 'dist'; ri -r $a",
      "$p = $env:SystemDrive + '\\build'; ri -r $p",
      "ri -r ($HOME + '\\build')",
      "ri -r ('{0}\\build' -f $HOME)",
      "ri -r ([Environment]::GetFolderPath('Desktop'))",
      "$a = @('build') + 'dist'; ri -r $a",
      "$p = 'build'; ri -r (Get-Variable p -ValueOnly)",
      "$global:p = 'C:\\build'; ri -r $global:p",
      "ri -r ('C:\\build\\x' | Split-Path)",
      "$a = 'x','y'; ri -r $a[$i]",
      'ri -r ($HOME | Join-Path -ChildPath build)',
      "$o = [pscustomobject]@{ Path = 'C:\\build' }; $o | Remove-Item -Recurse",
      "$p = @{ Path = 'C:\\build'; Recurse = $true }; ri $p.Path -Recurse",
      "[string[]]$p = 'x', 'build'; ri -r $p",
    ]) {
      expect(refuses(command), command).toBeNull();
    }
  });

  it('reads values in near-linear time', () => {
    const n = 20_000;
    const shapes = [
      `$a = ${"'x', ".repeat(n)}'y'; ri -r $a`,
      `$a = ${'@('.repeat(n / 4)}'x'${')'.repeat(n / 4)}; ri -r $a`,
      `ri -r ${'$('.repeat(n / 4)}'x'${')'.repeat(n / 4)}`,
      `ri -r ${'(Join-Path '.repeat(n / 4)}x y${')'.repeat(n / 4)}`,
      `ri -r ${'(Split-Path '.repeat(n / 4)}C:\\x${')'.repeat(n / 4)}`,
      `$p = @{ ${"Path = 'x'; ".repeat(n)}}; ri @p`,
      `$d = foreach ($x in ${"'a',".repeat(n)}'b') { $x }; ri -r $d`,
      `$a = 'x'; ${'$a += $a; '.repeat(n / 4)}ri -r $a`,
      `$a = ${'$b = '.repeat(n / 2)}'x'; ri -r $a`,
      `${'echo $(cd x); '.repeat(n / 4)}ri -r *`,
      `cmd /c "${'set P=x&& '.repeat(n / 4)}rd /s /q %P%"`,
      `$p = @{}; ${'$p.a = 1; $p.b = 2; '.repeat(n / 4)}${'ri @p; '.repeat(n / 4)}`,
      `$p = @{ ${Array.from({ length: n / 4 }, (_, i) => `k${i} = ${i}`).join('; ')} }; ${'ri @p; '.repeat(n / 4)}`,
      `${"$d = & { 'x' }; ".repeat(n / 4)}ri -r $d`,
      `$d = 'x' | ${'? { $_ } | '.repeat(n / 4)}% { 'y' }; ri -r $d`,
      `${"$a[0] = 'x'; $l.Add('y'); ".repeat(n / 4)}ri -r $a`,
      `$p = ${"'a' + ".repeat(n)}'b'; ri -r $p`,
      `$p = ${"('a' + ".repeat(n / 4)}'b'${')'.repeat(n / 4)}; ri -r $p`,
      `$p = '${'{0}'.repeat(n)}' -f ${"'a', ".repeat(n)}'b'; ri -r $p`,
      `ri -r ${'([IO.Path]::GetDirectoryName('.repeat(n / 8)}'C:\\x'${'))'.repeat(n / 8)}`,
      `ri -r ($HOME ${'| Split-Path '.repeat(n / 2)})`,
      `ri -r ${'$a[$i]'.repeat(n / 2)}`,
      `$a = ${'[x[]]'.repeat(n / 2)}'y'; ri -r $a`,
      `${'['.repeat(n)}$a = 1; ri -r $a`,
      `ri -r 'C:\\x'${'.Trim()'.repeat(n / 2)}`,
      `$p = 'x'; ${"$p = $p.Replace('x', 'xx'); ".repeat(n / 8)}ri -r $p`,
      `ri -r ${"'a'.Trim(".repeat(n / 4)}`,
      `ri -r (gi C:\\x)${'.Parent'.repeat(n / 2)}`,
      `(gi C:\\x)${'.Parent'.repeat(n / 2)}.Delete($true)`,
      `$p = 'x' ${"-replace 'a', 'b' ".repeat(n / 4)}; ri -r $p`,
      `$p = '${'a'.repeat(n)}' -replace '${'a'.repeat(n / 2)}'; ri -r $p`,
      `$p = '${'a\\'.repeat(500)}'; ${'ri -r ($p.Trim($x)); '.repeat(n / 4)}`,
      `$p = '${'a\\'.repeat(500)}'; ${'(gi $p).Parent.Delete(1); '.repeat(n / 4)}`,
    ];
    for (const text of shapes) {
      const started = performance.now();
      refuses(text);
      expect(performance.now() - started, text.slice(0, 40)).toBeLessThan(5_000);
    }
  });
});
