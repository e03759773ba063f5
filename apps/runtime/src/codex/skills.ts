import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { logEvent } from '../log.ts';

/** A selected plugin's skills as `plugin/read` lists them (`SkillSummary.path` is the skill's SKILL.md). */
export interface PluginSkills {
  nativeId: string;
  skills: readonly { name: string; path: string | null; enabled: boolean }[];
}

const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$/;

/**
 * Publishes the installed plugins' skills to OpenClaw ([S-4]): `<assets>/plugin-skills/<plugin>/<skill>`
 * is a link to the skill's own directory (so the files a SKILL.md refers to by relative path come
 * along), and `<openclawHome>/plugin-skills` links to `<assets>/plugin-skills`. The assets folder
 * holds these links only: no gateway state, no CODEX_HOME, no credential. Rebuilt at every start,
 * so a skill of an unselected plugin does not linger.
 */
export function linkPluginSkills(input: { assetsDir: string; openclawHome: string; plugins: readonly PluginSkills[] }): { linked: number } {
  const skillsRoot = join(input.assetsDir, 'plugin-skills');
  rmSync(skillsRoot, { recursive: true, force: true });
  mkdirSync(skillsRoot, { recursive: true, mode: 0o700 });
  let linked = 0;
  for (const plugin of input.plugins) {
    if (!SAFE_SEGMENT.test(plugin.nativeId)) continue;
    for (const skill of plugin.skills) {
      if (!skill.enabled || skill.path === null || !isAbsolute(skill.path)) continue;
      const skillDir = dirname(skill.path);
      const name = basename(skillDir);
      if (!SAFE_SEGMENT.test(name)) {
        logEvent('codex.skill_skipped', { pluginId: plugin.nativeId, reason: 'name' });
        continue;
      }
      const pluginDir = join(skillsRoot, plugin.nativeId);
      mkdirSync(pluginDir, { recursive: true, mode: 0o700 });
      symlinkSync(skillDir, join(pluginDir, name), 'dir');
      linked++;
    }
  }
  const published = join(input.openclawHome, 'plugin-skills');
  mkdirSync(input.openclawHome, { recursive: true, mode: 0o700 });
  rmSync(published, { recursive: true, force: true });
  symlinkSync(skillsRoot, published, 'dir');
  return { linked };
}
