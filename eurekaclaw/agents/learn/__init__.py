"""Stage 7, Learn: turn a finished session into memories and skills for the next one."""
