import { describe, expect, it } from 'vitest';
import {
  parseDomainOutput,
  parseOsOutput,
  parseProcessList,
  parseSignersOutput,
  powershellArgs,
  powershellPath,
  signersScript,
} from '../../../src/agent/collectors/windows-scripts.js';

describe('windows scripts and parsers', () => {
  it('uses the PowerShell under SystemRoot, never one found on PATH', () => {
    expect(powershellPath({ SystemRoot: 'D:\\WINDOWS' })).toBe(
      'D:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    );
    expect(powershellPath({})).toBe('C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe');
  });

  it('encodes the script as UTF-16LE base64 with UTF-8 output forced', () => {
    const args = powershellArgs('Write-Output "é"');
    const script = Buffer.from(args[3] ?? '', 'base64').toString('utf16le');
    expect(script).toContain('[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false');
    expect(script.endsWith('Write-Output "é"')).toBe(true);
  });

  it('embeds paths so that quotes, typographic quotes and $ cannot end the PowerShell string', () => {
    const paths = ["C:\\O'Brien\\a.exe", 'C:\\Zoë’s tools\\b.exe', 'C:\\$env:TEMP\\c.exe'];
    const script = signersScript(paths);
    const literal = /ConvertFrom-Json '([^']*)'/.exec(script)?.[1];
    expect(literal).toBeDefined();
    expect(literal).not.toMatch(/[\u2018-\u201b\u007f-\uffff]/);
    expect(JSON.parse(literal ?? '')).toEqual(paths);
  });

  it('parses a BOM-prefixed OS answer and derives the server flag from the caption when ProductType is absent', () => {
    expect(
      parseOsOutput(
        '\uFEFF{"Caption":"Microsoft Windows Server 2019 Standard","Version":"10.0.17763","BuildNumber":"17763"}',
      ),
    ).toEqual({
      type: 'WindowsServer',
      version: '10.0.17763',
      build: '17763',
    });
    expect(() => parseOsOutput('not json')).toThrow(/unexpected Win32_OperatingSystem output/);
  });

  it('prefers the workgroup name over a DNS-looking domain when not joined and NetGetJoinInformation failed', () => {
    expect(parseDomainOutput('{"domain":"corp.example.com","partOfDomain":true}')).toBe('corp.example.com');
    expect(parseDomainOutput('{"netbios":"HOME","joinStatus":2,"domain":"HOME","partOfDomain":false}')).toBe(
      'HOME',
    );
    expect(
      parseDomainOutput(
        '{"netbios":"","joinStatus":1,"domain":"WORKGROUP","partOfDomain":false,"workgroup":"LAB"}',
      ),
    ).toBe('LAB');
  });

  it('splits CRLF process output and drops blank lines', () => {
    expect(parseProcessList('C:\\a.exe\r\n\r\n  C:\\b c\\d.exe  \r\n')).toEqual([
      'C:\\a.exe',
      'C:\\b c\\d.exe',
    ]);
  });

  it('accepts a single unwrapped signer object, a lone thumbprint string, and drops malformed thumbprints', () => {
    const map = parseSignersOutput(
      '{"path":"C:\\\\X.exe","thumbprints":"ABCDEF0123456789ABCDEF0123456789ABCDEF01"}',
    );
    expect(map.get('c:\\x.exe')).toEqual(['abcdef0123456789abcdef0123456789abcdef01']);
    const bad = parseSignersOutput(
      '[{"path":"C:\\\\Y.exe","thumbprints":["xyz",null,"ABCDEF0123456789ABCDEF0123456789ABCDEF01","abcdef0123456789abcdef0123456789abcdef01"]}]',
    );
    expect(bad.get('c:\\y.exe')).toEqual(['abcdef0123456789abcdef0123456789abcdef01']);
  });
});
