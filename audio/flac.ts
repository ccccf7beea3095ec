/**
 * FLAC's STREAMINFO, completed after the fact. An encoder writing to a pipe
 * (ffmpeg's flac muxer on `pipe:1`) cannot seek back to its header, so the
 * header says "unknown" for the total sample count (and so for the
 * duration) and for the audio's MD5. When the whole audio is known before
 * the first byte is sent, the caller knows both and writes them here.
 *
 * Layout (RFC 9639): `fLaC`, then metadata blocks, STREAMINFO first: a
 * 4-byte block header (type 0, length 34), then min/max block size (2+2
 * bytes), min/max frame size (3+3), then 64 bits: sample rate (20), channels
 * - 1 (3), bits per sample - 1 (5), total samples (36), then the MD5 (16
 * bytes) of the unencoded samples (interleaved, little-endian, signed).
 * Frame sizes stay 0 ("unknown", which the format allows).
 */

const STREAMINFO = 8;

/** The encoded bytes with STREAMINFO's total sample count and MD5 filled in (a copy; throws when it is not a FLAC stream). */
export function completeFlacStreamInfo(flac: Buffer, totalSamples: number, md5: Buffer): Buffer {
  if (
    flac.length < STREAMINFO + 34 ||
    flac.toString('latin1', 0, 4) !== 'fLaC' ||
    (flac[4] & 0x7f) !== 0 ||
    flac.readUIntBE(5, 3) !== 34
  ) {
    throw new RangeError('not a FLAC stream starting with STREAMINFO');
  }
  if (!Number.isInteger(totalSamples) || totalSamples < 0 || totalSamples >= 2 ** 36)
    throw new RangeError(`total samples out of range: ${totalSamples}`);
  if (md5.length !== 16) throw new RangeError('an MD5 is 16 bytes');
  const out = Buffer.from(flac);
  // Bytes 13-17 of STREAMINFO: bits-per-sample's last bit and the 36-bit count's top 4 in byte 13, the rest after.
  out[STREAMINFO + 13] = (out[STREAMINFO + 13] & 0xf0) | Math.floor(totalSamples / 2 ** 32);
  out.writeUInt32BE(totalSamples % 2 ** 32, STREAMINFO + 14);
  md5.copy(out, STREAMINFO + 18);
  return out;
}

/** STREAMINFO's total sample count (0: unknown). */
export function flacTotalSamples(flac: Buffer): number {
  return (flac[STREAMINFO + 13] & 0x0f) * 2 ** 32 + flac.readUInt32BE(STREAMINFO + 14);
}
