/**
 * A QR code drawn in the page as a data: URL (the CSP allows `img-src data:` for exactly this), shown at its
 * own size: whole pixels per module, so a screenshot of it reads in any decoder (a JWT makes a dense code, and
 * a code squeezed into a fixed width gets uneven modules that decoders lose).
 */
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

export function QrImage({ text, label }: { text: string; label: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    QRCode.toDataURL(text, { margin: 2, scale: 4, errorCorrectionLevel: 'M' }).then(
      (made) => current && setUrl(made),
      () => current && setUrl(null),
    );
    return () => {
      current = false;
    };
  }, [text]);
  return url ? <img className="qr" src={url} alt={label} /> : null;
}
