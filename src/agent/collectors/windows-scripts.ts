/**
 * The PowerShell the Windows collector runs, and the parsers for what it prints. Kept apart from the
 * collector so the parsers can be tested against recorded outputs and the scripts read as one piece.
 *
 * Every script is sent with `-EncodedCommand` (UTF-16LE base64): no quoting rules of cmd.exe or
 * PowerShell apply to paths with spaces, quotes or `$`. Output is forced to UTF-8 because a redirected
 * PowerShell otherwise writes the OEM code page, which mangles non-ASCII paths.
 */
import { win32 } from 'node:path';

const PRELUDE =
  "$ErrorActionPreference = 'Stop'; $ProgressPreference = 'SilentlyContinue'; " +
  '[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false; ';

/** Absolute path, so a `powershell.exe` planted earlier on PATH is never the one that runs. */
export function powershellPath(env: NodeJS.ProcessEnv = process.env): string {
  const root = env.SystemRoot ?? env.windir ?? 'C:\\Windows';
  return win32.join(root, 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe');
}

export function powershellArgs(script: string): string[] {
  const encoded = Buffer.from(PRELUDE + script, 'utf16le').toString('base64');
  return ['-NoProfile', '-NonInteractive', '-EncodedCommand', encoded];
}

export const OS_SCRIPT =
  'Get-CimInstance -ClassName Win32_OperatingSystem | ' +
  'Select-Object Caption, Version, BuildNumber, ProductType | ConvertTo-Json -Compress';

/**
 * NetGetJoinInformation gives the NetBIOS domain or workgroup name, the value the OpenZiti C SDK sends
 * and admins write DOMAIN checks against. Add-Type can be refused (Constrained Language Mode), so the
 * CIM values are always printed too and used as the fallback.
 */
export const DOMAIN_SCRIPT = `
$r = @{}
try {
  Add-Type -Namespace Postern -Name NetApi -MemberDefinition '[DllImport("netapi32.dll", CharSet = CharSet.Unicode)] public static extern int NetGetJoinInformation(string server, out IntPtr name, out int status); [DllImport("netapi32.dll")] public static extern int NetApiBufferFree(IntPtr buffer);'
  $p = [IntPtr]::Zero; $s = 0
  if ([Postern.NetApi]::NetGetJoinInformation($null, [ref]$p, [ref]$s) -eq 0) {
    $r.netbios = [Runtime.InteropServices.Marshal]::PtrToStringUni($p); $r.joinStatus = $s
    [void][Postern.NetApi]::NetApiBufferFree($p)
  }
} catch {}
$cs = Get-CimInstance -ClassName Win32_ComputerSystem
$r.domain = $cs.Domain; $r.partOfDomain = $cs.PartOfDomain; $r.workgroup = $cs.Workgroup
ConvertTo-Json -InputObject $r -Compress`;

/** Full image paths; null (processes of other users when not elevated) are dropped. */
export const PROCESS_LIST_SCRIPT =
  'Get-CimInstance -ClassName Win32_Process -Property ExecutablePath | ' +
  'ForEach-Object { $_.ExecutablePath } | Where-Object { $_ }';

/**
 * Thumbprints of every certificate in each file's embedded Authenticode signature (leaf and chain, as
 * the C SDK takes them from the PKCS#7 store). A catalog-signed file has no embedded store; for it the
 * signer certificate and its built chain from Get-AuthenticodeSignature are used instead.
 */
export function signersScript(paths: readonly string[]): string {
  // Quotes and every non-ASCII character become JSON \u escapes: PowerShell also ends a single-quoted
  // string at typographic quotes (U+2018..U+201B), which can appear in a file name.
  const literal = JSON.stringify(paths).replace(
    /['\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `
$out = foreach ($p in @(ConvertFrom-Json '${literal}')) {
  $t = @()
  try {
    $c = New-Object System.Security.Cryptography.X509Certificates.X509Certificate2Collection
    $c.Import($p)
    $t = @($c | ForEach-Object { $_.Thumbprint })
  } catch {}
  if ($t.Count -eq 0) {
    try {
      $sig = Get-AuthenticodeSignature -LiteralPath $p
      if ($sig.SignerCertificate) {
        $chain = New-Object System.Security.Cryptography.X509Certificates.X509Chain
        $chain.ChainPolicy.RevocationMode = 'NoCheck'
        [void]$chain.Build($sig.SignerCertificate)
        $t = @($chain.ChainElements | ForEach-Object { $_.Certificate.Thumbprint })
        if ($t.Count -eq 0) { $t = @($sig.SignerCertificate.Thumbprint) }
      }
    } catch {}
  }
  [pscustomobject]@{ path = $p; thumbprints = @($t) }
}
ConvertTo-Json -InputObject @($out) -Depth 3 -Compress`;
}

function parseJson(stdout: string, what: string): unknown {
  const text = stdout.replace(/^\uFEFF/, '').trim();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`unexpected ${what} output from PowerShell: ${text.slice(0, 200)}`);
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

export interface WindowsOsFacts {
  type: 'Windows' | 'WindowsServer';
  version: string;
  build: string;
}

/** ProductType 1 is a workstation; 2 (domain controller) and 3 (server) are Windows Server. */
export function parseOsOutput(stdout: string): WindowsOsFacts {
  const data = parseJson(stdout, 'Win32_OperatingSystem');
  const build = text(field(data, 'BuildNumber'));
  const productType = Number(field(data, 'ProductType'));
  const caption = text(field(data, 'Caption'));
  const isServer =
    Number.isFinite(productType) && productType > 0 ? productType !== 1 : /server/i.test(caption);
  const [major = '10', minor = '0'] = text(field(data, 'Version')).split('.');
  if (!/^\d+$/.test(build)) throw new Error(`no BuildNumber in Win32_OperatingSystem output`);
  return { type: isServer ? 'WindowsServer' : 'Windows', version: `${major}.${minor}.${build}`, build };
}

/** NetBIOS name when NetGetJoinInformation answered (2 = workgroup, 3 = domain), else the CIM values. */
export function parseDomainOutput(stdout: string): string {
  const data = parseJson(stdout, 'domain');
  const netbios = text(field(data, 'netbios'));
  const joinStatus = Number(field(data, 'joinStatus'));
  if (netbios && (joinStatus === 2 || joinStatus === 3)) return netbios;
  const domain = text(field(data, 'domain'));
  if (field(data, 'partOfDomain') === true) return domain;
  return text(field(data, 'workgroup')) || domain;
}

export function parseProcessList(stdout: string): string[] {
  return stdout
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/** Map from lower-cased path to lower-case thumbprints; malformed entries are skipped. */
export function parseSignersOutput(stdout: string): Map<string, string[]> {
  const data = parseJson(stdout, 'signature');
  const result = new Map<string, string[]>();
  for (const item of Array.isArray(data) ? data : [data]) {
    const path = text(field(item, 'path'));
    const raw = field(item, 'thumbprints');
    const list = (Array.isArray(raw) ? raw : [raw]).map(text).map((t) => t.toLowerCase());
    if (path) result.set(path.toLowerCase(), [...new Set(list.filter((t) => /^[0-9a-f]{40}$/.test(t)))]);
  }
  return result;
}
