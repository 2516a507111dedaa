import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { allowedHosts, isWildcardAddress, reachableAddress, type MachineAddresses } from '../../src-main/web/auth';

function nic(address: string, internal = false): NetworkInterfaceInfo {
  const family = address.includes(':') ? 'IPv6' : 'IPv4';
  const common = { address, netmask: '', mac: '00:00:00:00:00:00', internal, cidr: null };
  return family === 'IPv6' ? { ...common, family, scopeid: 0 } : { ...common, family };
}

/** A machine whose addresses the test changes while the server runs. */
function machine(addresses: string[], name = 'workstation'): MachineAddresses & { addresses: string[] } {
  return {
    addresses,
    interfaces() {
      return this.addresses.map((address) => nic(address, address === '127.0.0.1' || address === '::1'));
    },
    hostname: () => name,
  };
}

const PORT = 4321;

describe('allowedHosts: the Host headers that name this server', () => {
  it('bound to one loopback address: that address and the loopback names', () => {
    const v6 = allowedHosts('::1', '::1', PORT);
    expect(v6.has(`[::1]:${PORT}`)).toBe(true);
    expect(v6.has(`localhost:${PORT}`)).toBe(true);
    const other = allowedHosts('127.0.0.2', '127.0.0.2', PORT);
    expect(other.has(`127.0.0.2:${PORT}`)).toBe(true);
    expect(other.has(`127.0.0.1:${PORT}`)).toBe(true);
    // "localhost" resolved to ::1 when listening
    expect(allowedHosts('localhost', '::1', PORT).has(`[::1]:${PORT}`)).toBe(true);
  });

  it('never a name an attacker controls, nor another port', () => {
    for (const hosts of [allowedHosts('127.0.0.1', '127.0.0.1', PORT), allowedHosts('0.0.0.0', '0.0.0.0', PORT, machine(['127.0.0.1', '192.0.2.5']))]) {
      for (const host of [`evil.example:${PORT}`, `localhost.evil.example:${PORT}`, `127.0.0.1.nip.io:${PORT}`, `localhost:${PORT + 1}`, 'localhost', '']) {
        expect(hosts.has(host), host).toBe(false);
      }
    }
  });

  it('bound to every interface: loopback, the host name and every address the machine has', () => {
    const box = machine(['127.0.0.1', '::1', '192.0.2.5', 'fd00::5']);
    const hosts = allowedHosts('0.0.0.0', '0.0.0.0', PORT, box);
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '192.0.2.5', '[fd00::5]', 'workstation']) {
      expect(hosts.has(`${host}:${PORT}`), host).toBe(true);
    }
    // The address a wildcard bind reports is not a name anyone reaches the server by.
    expect(hosts.has(`0.0.0.0:${PORT}`)).toBe(false);
    expect(allowedHosts('::', '::', PORT, box).has(`[fd00::5]:${PORT}`)).toBe(true);
  });

  it('bound to every interface: an address the machine gets later is accepted, one it never had is not', () => {
    const box = machine(['127.0.0.1', '192.0.2.5']);
    const hosts = allowedHosts('0.0.0.0', '0.0.0.0', PORT, box);
    expect(hosts.has(`198.51.100.7:${PORT}`)).toBe(false);
    box.addresses.push('198.51.100.7');
    expect(hosts.has(`198.51.100.7:${PORT}`)).toBe(true);
  });

  it('port 80: browsers leave the port out of Host and Origin', () => {
    expect(allowedHosts('127.0.0.1', '127.0.0.1', 80).has('localhost')).toBe(true);
    expect(allowedHosts('127.0.0.1', '127.0.0.1', PORT).has('localhost')).toBe(false);
  });
});

describe('reachableAddress: what to print for a server bound to every interface', () => {
  it('prefers an IPv4 address other machines can reach', () => {
    expect(reachableAddress('0.0.0.0', machine(['127.0.0.1', '::1', 'fe80::1', 'fd00::5', '192.0.2.5']))).toBe('192.0.2.5');
    expect(reachableAddress('::', machine(['127.0.0.1', '::1', 'fd00::5', '192.0.2.5']))).toBe('192.0.2.5');
  });

  it('bound to :: with only IPv6: a routable IPv6 address, never link-local', () => {
    expect(reachableAddress('::', machine(['::1', 'fe80::1', 'fd00::5']))).toBe('fd00::5');
    expect(reachableAddress('::', machine(['::1', 'fe80::1']))).toBe('::1');
  });

  it('with no network: loopback of the family that is listening', () => {
    expect(reachableAddress('0.0.0.0', machine(['127.0.0.1', '::1', 'fd00::5']))).toBe('127.0.0.1');
    expect(reachableAddress('::', machine(['127.0.0.1', '::1']))).toBe('::1');
  });

  it('knows a wildcard address when it sees one', () => {
    for (const address of ['0.0.0.0', '::', '0:0:0:0:0:0:0:0', '::0']) expect(isWildcardAddress(address), address).toBe(true);
    for (const address of ['127.0.0.1', '::1', '192.0.2.5', 'localhost', '0.0.0.1']) expect(isWildcardAddress(address), address).toBe(false);
  });
});
