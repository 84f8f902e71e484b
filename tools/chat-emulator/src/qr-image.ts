import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is a UMD bundle whose CommonJS export IS the function; its typings declare an ES default export.
type JsQr = typeof jsQRModule.default;
const jsQR: JsQr = typeof jsQRModule === 'function' ? (jsQRModule as JsQr) : jsQRModule.default;

const DATA_URL = /^data:image\/png;base64,/;

/**
 * Reads what a phone camera would: a `data:image/png;base64,...` QR image is decoded with jsQR;
 * anything else is taken as the raw pairing string. `undefined` when the image holds no QR code.
 */
export const readQrCode = (qrCode: string): string | undefined => {
  if (!DATA_URL.test(qrCode)) return qrCode;
  try {
    const png = PNG.sync.read(Buffer.from(qrCode.replace(DATA_URL, ''), 'base64'));
    const pixels = new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length);
    return jsQR(pixels, png.width, png.height)?.data;
  } catch {
    return undefined;
  }
};
