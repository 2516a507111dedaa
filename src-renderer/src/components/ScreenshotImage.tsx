import type { ImgHTMLAttributes } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { useScreenshotUrl } from './useScreenshotUrl';

type ScreenshotImageProps = { screenshot: ScreenshotRef } & Omit<ImgHTMLAttributes<HTMLImageElement>, 'src'>;

/** An <img> of a stored screenshot, once it has loaded. */
export function ScreenshotImage({ screenshot, alt, ...props }: ScreenshotImageProps) {
  const { url } = useScreenshotUrl(screenshot);
  return url ? <img src={url} alt={alt} {...props} /> : null;
}
