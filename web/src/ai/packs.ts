import { useQuery } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { aiKeys, SkillPacksDocument } from './api.ts';
import { useAi } from './session.ts';

/** The active skill packs, and the key a new conversation starts with (the picked one, else `general`, else the first). */
export function usePacks() {
  const q = useQuery({ queryKey: aiKeys.packs, queryFn: async () => (await request(SkillPacksDocument)).aiSkillPacks, staleTime: 5 * 60_000 });
  const chosen = useAi((s) => s.pack);
  const list = q.data ?? [];
  return { list, value: chosen ?? (list.find((p) => p.key === 'general') ?? list[0])?.key ?? null };
}
