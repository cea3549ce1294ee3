/**
 * The 24 Pitchwise themes (spec section 9). Each id has a matching `[data-theme="id"]` block of CSS
 * variables in ./themes.css; `swatch` holds that theme's background, primary, sidebar and accent colours
 * for previews. The choice is kept in localStorage (THEME_STORAGE_KEY) and on the server (user.theme).
 */

export interface ThemeDefinition {
  id: string;
  name: string;
  mode: "light" | "dark";
  /** [background, primary, sidebar, accent] as CSS colours */
  swatch: [string, string, string, string];
}

export const THEMES = [
  {
    id: "monochrome-elite",
    name: "Monochrome Elite",
    mode: "light",
    swatch: ["oklch(0.985 0 0)", "oklch(0.2 0 0)", "oklch(0.2 0 0)", "oklch(0.95 0 0)"],
  },
  {
    id: "blue-ocean",
    name: "Blue Ocean",
    mode: "light",
    swatch: [
      "oklch(0.985 0.005 230)",
      "oklch(0.56 0.17 245)",
      "oklch(0.975 0.01 230)",
      "oklch(0.95 0.037 245)",
    ],
  },
  {
    id: "modern-blue",
    name: "Modern Blue",
    mode: "light",
    swatch: [
      "oklch(0.985 0.006 255)",
      "oklch(0.55 0.2 262)",
      "oklch(0.2 0.025 262)",
      "oklch(0.95 0.044 262)",
    ],
  },
  {
    id: "dark-vibrant",
    name: "Dark Vibrant",
    mode: "dark",
    swatch: ["oklch(0.16 0.04 285)", "oklch(0.68 0.24 330)", "oklch(0.13 0.04 285)", "oklch(0.28 0.07 330)"],
  },
  {
    id: "green-fresh",
    name: "Green Fresh",
    mode: "light",
    swatch: [
      "oklch(0.985 0.006 150)",
      "oklch(0.6 0.16 150)",
      "oklch(0.975 0.012 150)",
      "oklch(0.95 0.035 150)",
    ],
  },
  {
    id: "orange-energy",
    name: "Orange Energy",
    mode: "light",
    swatch: ["oklch(0.985 0.006 60)", "oklch(0.66 0.19 45)", "oklch(0.975 0.012 60)", "oklch(0.95 0.042 45)"],
  },
  {
    id: "cyan-tech",
    name: "Cyan Tech",
    mode: "dark",
    swatch: ["oklch(0.16 0.04 225)", "oklch(0.78 0.13 205)", "oklch(0.13 0.04 225)", "oklch(0.28 0.045 205)"],
  },
  {
    id: "red-power",
    name: "Red Power",
    mode: "light",
    swatch: ["oklch(0.985 0.005 20)", "oklch(0.57 0.22 25)", "oklch(0.2 0.025 25)", "oklch(0.95 0.045 25)"],
  },
  {
    id: "purple-royal",
    name: "Purple Royal",
    mode: "light",
    swatch: [
      "oklch(0.985 0.007 300)",
      "oklch(0.5 0.22 300)",
      "oklch(0.2 0.025 300)",
      "oklch(0.95 0.045 300)",
    ],
  },
  {
    id: "teal-medical",
    name: "Teal Medical",
    mode: "light",
    swatch: [
      "oklch(0.985 0.006 195)",
      "oklch(0.58 0.11 190)",
      "oklch(0.975 0.012 195)",
      "oklch(0.95 0.024 190)",
    ],
  },
  {
    id: "amber-sunset",
    name: "Amber Sunset",
    mode: "light",
    swatch: ["oklch(0.985 0.012 70)", "oklch(0.78 0.16 75)", "oklch(0.975 0.024 70)", "oklch(0.95 0.035 75)"],
  },
  {
    id: "rose-pink",
    name: "Rose Pink",
    mode: "light",
    swatch: ["oklch(0.985 0.007 0)", "oklch(0.62 0.2 5)", "oklch(0.975 0.014 0)", "oklch(0.95 0.044 5)"],
  },
  {
    id: "emerald-forest",
    name: "Emerald Forest",
    mode: "dark",
    swatch: ["oklch(0.16 0.05 165)", "oklch(0.7 0.15 160)", "oklch(0.13 0.05 165)", "oklch(0.28 0.052 160)"],
  },
  {
    id: "neon-glow",
    name: "Neon Glow",
    mode: "dark",
    swatch: ["oklch(0.16 0.03 290)", "oklch(0.86 0.24 145)", "oklch(0.13 0.03 290)", "oklch(0.28 0.07 145)"],
  },
  {
    id: "ocean-deep",
    name: "Ocean Deep",
    mode: "dark",
    swatch: ["oklch(0.16 0.07 240)", "oklch(0.72 0.13 220)", "oklch(0.13 0.07 240)", "oklch(0.28 0.045 220)"],
  },
  {
    id: "mint-fresh",
    name: "Mint Fresh",
    mode: "light",
    swatch: [
      "oklch(0.985 0.009 170)",
      "oklch(0.72 0.13 168)",
      "oklch(0.975 0.018 170)",
      "oklch(0.95 0.029 168)",
    ],
  },
  {
    id: "lavender-dream",
    name: "Lavender Dream",
    mode: "light",
    swatch: [
      "oklch(0.985 0.009 295)",
      "oklch(0.62 0.15 295)",
      "oklch(0.975 0.018 295)",
      "oklch(0.95 0.033 295)",
    ],
  },
  {
    id: "crimson-dark",
    name: "Crimson Dark",
    mode: "dark",
    swatch: ["oklch(0.16 0.03 15)", "oklch(0.6 0.22 20)", "oklch(0.13 0.03 15)", "oklch(0.28 0.07 20)"],
  },
  {
    id: "gold-luxe",
    name: "Gold Luxe",
    mode: "dark",
    swatch: ["oklch(0.16 0.02 70)", "oklch(0.8 0.13 85)", "oklch(0.13 0.02 70)", "oklch(0.28 0.045 85)"],
  },
  {
    id: "midnight-blue",
    name: "Midnight Blue",
    mode: "dark",
    swatch: ["oklch(0.16 0.08 265)", "oklch(0.65 0.19 260)", "oklch(0.13 0.08 265)", "oklch(0.28 0.066 260)"],
  },
  {
    id: "lime-electric",
    name: "Lime Electric",
    mode: "light",
    swatch: [
      "oklch(0.985 0.006 125)",
      "oklch(0.84 0.2 128)",
      "oklch(0.2 0.025 128)",
      "oklch(0.95 0.044 128)",
    ],
  },
  {
    id: "coral-reef",
    name: "Coral Reef",
    mode: "light",
    swatch: ["oklch(0.985 0.007 30)", "oklch(0.66 0.17 32)", "oklch(0.975 0.014 30)", "oklch(0.95 0.037 32)"],
  },
  {
    id: "indigo-night",
    name: "Indigo Night",
    mode: "dark",
    swatch: ["oklch(0.16 0.07 275)", "oklch(0.62 0.2 277)", "oklch(0.13 0.07 275)", "oklch(0.28 0.07 277)"],
  },
  {
    id: "steel-gray",
    name: "Steel Gray",
    mode: "light",
    swatch: [
      "oklch(0.985 0.007 250)",
      "oklch(0.45 0.04 250)",
      "oklch(0.2 0.024 250)",
      "oklch(0.95 0.009 250)",
    ],
  },
] as const satisfies readonly ThemeDefinition[];

export type ThemeId = (typeof THEMES)[number]["id"];

export const DEFAULT_THEME: ThemeId = "monochrome-elite";
export const THEME_STORAGE_KEY = "pitchwise-theme";

const THEME_IDS = new Set<string>(THEMES.map((t) => t.id));

/** True when `value` is one of the 24 theme ids. */
export function isThemeId(value: unknown): value is ThemeId {
  return typeof value === "string" && THEME_IDS.has(value);
}

/** The theme saved in localStorage, or the default when none (or an unknown one) is saved. */
export function getStoredTheme(): ThemeId {
  try {
    const saved = localStorage.getItem(THEME_STORAGE_KEY);
    return isThemeId(saved) ? saved : DEFAULT_THEME;
  } catch {
    return DEFAULT_THEME;
  }
}

/** True when the browser already has a saved theme choice. */
export function hasStoredTheme(): boolean {
  try {
    return isThemeId(localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return false;
  }
}

/** Applies a theme instantly (data-theme on <html>) and remembers it in localStorage. Unknown ids are ignored. */
export function applyTheme(id: string): void {
  if (!isThemeId(id)) return;
  document.documentElement.dataset.theme = id;
  try {
    localStorage.setItem(THEME_STORAGE_KEY, id);
  } catch {
    // storage unavailable (private mode): the theme still applies for this page view
  }
}

/** The theme currently shown on <html>. */
export function getActiveTheme(): ThemeId {
  const current = document.documentElement.dataset.theme;
  return isThemeId(current) ? current : DEFAULT_THEME;
}
