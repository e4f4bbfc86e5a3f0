/**
 * The provisioning URL as a QR code, rendered locally (the secret never needs another request): block
 * characters for a terminal, a PNG data URL for the renderer.
 */
import QRCode from 'qrcode';

export function qrForTerminal(provisioningUrl: string): Promise<string> {
  return QRCode.toString(provisioningUrl, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
}

export function qrDataUrl(provisioningUrl: string): Promise<string> {
  return QRCode.toDataURL(provisioningUrl, { errorCorrectionLevel: 'M', margin: 2, width: 256 });
}
