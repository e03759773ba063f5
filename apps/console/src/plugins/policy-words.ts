import { APPROVAL_MODES, REVIEWERS, type ApprovalMode, type Reviewer } from '@occ/contracts';

/** The policy vocabulary in words; the API value is kept visible too, since docs and the CLI use it. */
export const APPROVAL_WORDS: Record<ApprovalMode, string> = {
  provider_default: "Provider's default",
  all_actions: 'Ask before every action',
  write_actions: 'Ask before write actions',
  none: 'Never ask',
};

export const REVIEWER_WORDS: Record<Reviewer, string> = {
  human: 'A person reviews',
  auto: 'Automatic reviewer',
};

export const ALL_APPROVAL_MODES: readonly ApprovalMode[] = APPROVAL_MODES;
export const ALL_REVIEWERS: readonly Reviewer[] = REVIEWERS;
