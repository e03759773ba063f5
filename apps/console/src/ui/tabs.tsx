import type { ComponentChildren } from 'preact';

export interface TabLink {
  id: string;
  label: string;
  href: string;
}

/**
 * Tabs that are links: each tab is its own URL (bookmarkable, back button works), announced as
 * the current page. Plain links keep keyboard use native (Tab, Enter).
 */
export function TabNav({ label, tabs, current, children }: { label: string; tabs: readonly TabLink[]; current: string; children: ComponentChildren }) {
  return (
    <div class="tabs">
      <nav aria-label={label}>
        <ul class="tab-list">
          {tabs.map((tab) => (
            <li key={tab.id}>
              <a href={tab.href} class={tab.id === current ? 'tab tab-current' : 'tab'} aria-current={tab.id === current ? 'page' : undefined}>
                {tab.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section class="tab-panel" aria-label={tabs.find((tab) => tab.id === current)?.label}>
        {children}
      </section>
    </div>
  );
}
