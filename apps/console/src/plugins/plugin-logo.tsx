import { useState } from 'preact/hooks';
import { initials, type PluginLogo as Logo } from '../picker/entry-presentation.ts';

/**
 * A plugin's logo: an HTTPS image loaded without a referrer, or its initials when there is none
 * or the image fails ([C-7]). The initials are text, so the card never depends on the image.
 */
export function PluginLogo({ logo, name }: { logo: Logo; name: string }) {
  const [failed, setFailed] = useState(false);
  if (logo.kind === 'image' && !failed) {
    return <img class="logo" src={logo.src} referrerpolicy={logo.referrerPolicy} alt="" loading="lazy" decoding="async" onError={() => setFailed(true)} />;
  }
  return (
    <span class="logo logo-initials" aria-hidden="true">
      {logo.kind === 'initials' ? logo.text : initials(name)}
    </span>
  );
}
