"""Theory stage: prove the lemma DAG bottom-up (prove -> mechanical checks -> independent
review -> record or refine), refute what is false, assemble and check the whole proof."""
