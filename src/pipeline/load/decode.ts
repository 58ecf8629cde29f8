/**
 * Spec files are UTF-8. Decoding is strict: a byte that is not UTF-8 is reported at its line and column instead of
 * becoming U+FFFD (which would turn "é" saved as Latin-1 into a misleading "unknown field" or slip into a
 * description unseen). A UTF-8 byte order mark at the start is accepted and kept, as editors write it.
 */

/** The decoded text, or why the bytes are not a UTF-8 file (the message follows the file's name). */
export type Decoded =
  { ok: true; text: string } | { ok: false; line: number; column: number; message: string; hint: string };

const RESAVE =
  're-save the file as UTF-8 (in most editors: "Save with Encoding" or "Reopen with Encoding", then UTF-8)';

export function decodeUtf8(bytes: Uint8Array): Decoded {
  const fail = (line: number, column: number, message: string, hint: string) =>
    ({ ok: false, line, column, message, hint }) as const;
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const order = bytes[0] === 0xff ? '0xFF 0xFE' : '0xFE 0xFF';
    return fail(1, 1, `is UTF-16 (it starts with the byte order mark ${order}); spec files must be UTF-8`, RESAVE);
  }
  try {
    // ignoreBOM keeps a leading U+FEFF in the text, so positions and hashes match what was read before.
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    const bad = firstInvalidUtf8(bytes) ?? { offset: bytes.length, length: 0 };
    const before = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, bad.offset));
    const shown = Array.from(bytes.subarray(bad.offset, bad.offset + bad.length), hex).join(' ');
    return fail(
      before.split('\n').length,
      before.length - before.lastIndexOf('\n'),
      `is not valid UTF-8: ${shown.includes(' ') ? `the bytes ${shown} here do` : `the byte ${shown} here does`} not form a character; spec files must be UTF-8`,
      `${RESAVE}; text typed in another encoding (Latin-1, Windows-1252) shows up like this, e.g. "é" saved as the single byte 0xE9`,
    );
  }
}

/**
 * Where the first ill-formed UTF-8 sequence (RFC 3629) starts, and how many of its bytes are wrong (a lead byte
 * and the continuation bytes read before the one that broke it); undefined when all of it is well-formed.
 */
export function firstInvalidUtf8(b: Uint8Array): { offset: number; length: number } | undefined {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    // The bytes that follow a lead byte: C2–DF one, E0–EF two, F0–F4 three; 80–C1 and F5–FF lead no sequence.
    const n = c < 0xc2 || c > 0xf4 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
    if (n < 1) return { offset: i, length: 1 };
    // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || x < (k === 1 ? lo : 0x80) || x > (k === 1 ? hi : 0xbf)) return { offset: i, length: k };
    }
    i += n + 1;
  }
  return undefined;
}

function hex(b: number): string {
  return `0x${b.toString(16).toUpperCase().padStart(2, '0')}`;
}
