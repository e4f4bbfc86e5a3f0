/** A QR code drawn in the page as a data: URL (the CSP allows `img-src data:` for exactly this). */
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

export function QrImage({ text, label }: { text: string; label: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    QRCode.toDataURL(text, { margin: 1, width: 200, errorCorrectionLevel: 'M' }).then(
      (made) => current && setUrl(made),
      () => current && setUrl(null),
    );
    return () => {
      current = false;
    };
  }, [text]);
  return url ? <img className="qr" src={url} alt={label} width={200} height={200} /> : null;
}
