/**
 * The eval's tasks: each runs in a fresh copy of `eval/fixture` (a git repository at its first
 * commit) and is judged by a shell command run there afterwards, which sees the agent's final
 * answer in `$ANSWER` and the tools its session tree called in `$TOOLS` (names, one per line).
 */
export interface EvalTask {
  id: string;
  /** What it measures, for the table. */
  kind: 'explain' | 'find' | 'fix' | 'rename' | 'test' | 'delegate' | 'change';
  prompt: string;
  /** Exit 0: passed. */
  check: string;
}

/** The answer names every word (case does not matter). */
const answerNames = (...words: string[]) =>
  words.map((word) => `printf '%s' "$ANSWER" | grep -qiw -- '${word}'`).join(' && ');
/** The calculator's tests pass, and the test file is as it was (the code was fixed, not the test). */
const TESTS_PASS_UNCHANGED = 'python3 -m unittest -q test_calc && git diff --quiet -- test_calc.py';

export const EVAL_TASKS: EvalTask[] = [
  {
    id: 'explain-calc',
    kind: 'explain',
    prompt: 'Explain what calc.py does.',
    check: answerNames('add', 'subtract', 'multiply', 'divide'),
  },
  {
    id: 'find-entry',
    kind: 'find',
    prompt: 'Which file is the entry point of this project? Answer with its file name.',
    check: answerNames('main.py'),
  },
  {
    id: 'find-caller',
    kind: 'find',
    prompt: 'Which file uses calc.divide? Answer with the file name.',
    check: answerNames('main.py'),
  },
  {
    id: 'count-functions',
    kind: 'explain',
    prompt: 'How many functions does calc.py define? Answer with a number.',
    check: `printf '%s' "$ANSWER" | grep -Eqiw '4|four'`,
  },
  {
    id: 'fix-add',
    kind: 'fix',
    prompt: 'The add function in calc.py subtracts instead of adding. Fix the bug.',
    check: TESTS_PASS_UNCHANGED,
  },
  {
    id: 'fix-failing-test',
    kind: 'fix',
    prompt: 'Tests in test_calc.py fail. Find out why and fix the code, not the tests.',
    check: TESTS_PASS_UNCHANGED,
  },
  {
    id: 'fix-typo',
    kind: 'fix',
    prompt: 'README.md misspells "calculator" as "calculater". Fix the spelling.',
    check: `! grep -qi calculater README.md && grep -qi calculator README.md`,
  },
  {
    id: 'rename-shout',
    kind: 'rename',
    prompt: 'Rename the function shout to yell everywhere in the project: its definition and every use.',
    check: `! grep -rqw shout --include='*.py' . && grep -q 'def yell' greet.py && python3 -c 'import main'`,
  },
  {
    id: 'add-test',
    kind: 'test',
    prompt: 'Add a test method for calc.multiply to the CalcTest class in test_calc.py.',
    check: [
      'python3 - <<"PY"',
      'import sys, unittest, test_calc',
      'names = [name for name in unittest.TestLoader().getTestCaseNames(test_calc.CalcTest) if "mul" in name]',
      'suite = unittest.TestSuite(test_calc.CalcTest(name) for name in names)',
      'sys.exit(0 if names and unittest.TextTestRunner().run(suite).wasSuccessful() else 1)',
      'PY',
    ].join('\n'),
  },
  {
    id: 'add-function',
    kind: 'change',
    prompt: 'Add a function power(a, b) to calc.py that returns a raised to the power b.',
    check: `python3 -c 'import calc; assert calc.power(2, 3) == 8 and calc.power(5, 0) == 1'`,
  },
  {
    id: 'divide-by-zero',
    kind: 'change',
    prompt: 'Make calc.divide raise a ValueError when b is 0.',
    check: `python3 -c '
import calc
assert calc.divide(6, 3) == 2
try:
    calc.divide(1, 0)
except ValueError:
    pass
else:
    raise SystemExit("no ValueError")'`,
  },
  {
    id: 'create-file',
    kind: 'change',
    prompt: 'Create a file named VERSION that contains only the text 1.0.0',
    check: `[ "$(tr -d ' \\n' < VERSION)" = "1.0.0" ]`,
  },
  {
    id: 'delegate-explore',
    kind: 'delegate',
    prompt:
      'Use the task tool with the explore agent to find which file defines the function shout. Then tell me that file.',
    check: `${answerNames('greet.py')} && printf '%s' "$TOOLS" | grep -qx task`,
  },
];

/** The tasks named in `ids` (all when none is named); an unknown id is an error naming the known ones. */
export function selectTasks(ids: string[]): EvalTask[] {
  if (ids.length === 0) return EVAL_TASKS;
  const unknown = ids.filter((id) => !EVAL_TASKS.some((task) => task.id === id));
  if (unknown.length > 0)
    throw new Error(
      `Unknown eval task ${unknown.join(', ')}: the tasks are ${EVAL_TASKS.map((task) => task.id).join(', ')}`,
    );
  return EVAL_TASKS.filter((task) => ids.includes(task.id));
}
