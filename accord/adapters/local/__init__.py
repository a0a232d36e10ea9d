"""In-process models: the real small models that ship in PyPI packages, run with transformers on
this machine (never fetched from a hub).

- Prompted judges: :class:`LLMJudges` (SmolLM2 in the paper's three roles, one forward pass per
  step, scores read from the next-token distribution by :class:`NextTokenScorer`) and
  :class:`VLMJudges` (a vision-language model; :func:`random_vlm` builds a tiny random one).
- Generators: :class:`TransformersGenerator` (diverse candidate steps, :class:`PromptSampler`),
  :class:`VLMGenerator`.
- :class:`EmbeddingRelevanceJudge` (MiniLM sentence embeddings).
- Reward models as judges: :class:`RewardModel`, :class:`LikelihoodReward`, :class:`SimilarityReward`,
  :class:`CorrectnessReward`, :class:`JudgeReward`, :class:`RewardJudge`.
- The judge prompts the served judges reuse, so a served model is asked exactly what a local one is
  (``LLM_ROLES``, ``judge_body``, ``VLM_ROLES``, ``judge_user_text``, ...).

torch and transformers are imported inside the functions that need them.
"""

from accord.adapters.local._embedding import EmbeddingRelevanceJudge
from accord.adapters.local._kv_prefix import Prefix, PrefixStore, shared_opening
from accord.adapters.local._llm import (
    CLOSING,
    DEFAULT_EXAMPLE,
    DEFAULT_SYSTEM,
    FINAL_PATTERN,
    LLM_JUDGE_SYSTEM,
    LLM_ROLES,
    CausalLMGenerator,
    LLMJudge,
    LLMJudges,
    TransformersGenerator,
    chat_prompt,
    check_sampling,
    judge_body,
    judge_items,
    role_label,
    steps_text,
)
from accord.adapters.local._models import load_causal_lm, load_minilm, quiet_model_loading, smollm2_location
from accord.adapters.local._reward import (
    CorrectnessReward,
    JudgeReward,
    LikelihoodReward,
    RewardJudge,
    RewardModel,
    RewardSource,
    SimilarityReward,
    reward_rows,
)
from accord.adapters.local._sampling import PromptSampler, nucleus
from accord.adapters.local._scoring import (
    NO_VARIANTS,
    SCORING_MODES,
    YES_VARIANTS,
    NextTokenScorer,
    answer_token_groups,
    check_roles_and_mode,
    plain_scores,
)
from accord.adapters.local._vlm import (
    VLM,
    VLM_JUDGE_SYSTEM,
    VLM_ROLES,
    VLMGenerator,
    VLMJudge,
    VLMJudges,
    judge_user_text,
    load_image,
    load_vlm,
    random_vlm,
    shared_vlm,
    small_tokenizer,
)

__all__ = [
    "CLOSING",
    "DEFAULT_EXAMPLE",
    "DEFAULT_SYSTEM",
    "FINAL_PATTERN",
    "LLM_JUDGE_SYSTEM",
    "LLM_ROLES",
    "SCORING_MODES",
    "check_roles_and_mode",
    "NO_VARIANTS",
    "VLM",
    "VLM_JUDGE_SYSTEM",
    "VLM_ROLES",
    "YES_VARIANTS",
    "CausalLMGenerator",
    "CorrectnessReward",
    "EmbeddingRelevanceJudge",
    "JudgeReward",
    "LLMJudge",
    "LLMJudges",
    "LikelihoodReward",
    "NextTokenScorer",
    "Prefix",
    "PrefixStore",
    "PromptSampler",
    "RewardJudge",
    "RewardModel",
    "RewardSource",
    "SimilarityReward",
    "TransformersGenerator",
    "VLMGenerator",
    "VLMJudge",
    "VLMJudges",
    "answer_token_groups",
    "chat_prompt",
    "check_sampling",
    "judge_body",
    "judge_items",
    "judge_user_text",
    "load_causal_lm",
    "load_image",
    "load_minilm",
    "load_vlm",
    "nucleus",
    "plain_scores",
    "quiet_model_loading",
    "random_vlm",
    "reward_rows",
    "role_label",
    "shared_vlm",
    "shared_opening",
    "small_tokenizer",
    "smollm2_location",
    "steps_text",
]
