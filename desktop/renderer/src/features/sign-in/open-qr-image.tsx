/**
 * "Open a QR code image…": a screenshot or photo of the enrollment QR (as the console shows it) turned into
 * the token, or a sentence saying why not. No camera: main denies every permission request, media included
 * (desktop/main/security.ts), and a laptop's camera aimed at another screen is the awkward way to do what a
 * screenshot does; lifting that rule for getUserMedia is a security decision of its own.
 */
import { useRef, useState } from 'react';
import { readTokenFromQrImage } from './read-qr-image.js';

export function OpenQrImage({
  onToken,
  onProblem,
}: {
  onToken: (token: string) => void;
  onProblem: (problem: string | null) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [reading, setReading] = useState(false);

  async function open(file: File | undefined) {
    onProblem(null);
    if (!file) return;
    setReading(true);
    try {
      const result = await readTokenFromQrImage(file);
      if (result.ok) onToken(result.token);
      else onProblem(result.problem);
    } catch {
      onProblem(`${file.name} could not be read. Open a PNG or JPEG image of the QR code.`);
    } finally {
      setReading(false);
      // The same file chosen again (after a fix elsewhere) must fire `change` again.
      if (input.current) input.current.value = '';
    }
  }

  return (
    <>
      <button type="button" className="secondary" disabled={reading} onClick={() => input.current?.click()}>
        {reading ? 'Reading the QR code…' : 'Open a QR code image…'}
      </button>
      <input
        ref={input}
        type="file"
        accept="image/png,image/jpeg,image/webp,image/gif,image/bmp"
        hidden
        aria-label="QR code image"
        onChange={(e) => void open(e.target.files?.[0])}
      />
    </>
  );
}
