/*
 * ulabel.c - C labels for process().function().label() (test_upid.py),
 * one in a nested block.
 */
int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		s += i;
again:
		if (s > 1000)
			goto out;
	}
	if (n < 0)
		goto again;
out:
	return s;
}

int main(void)
{
	return work(3) == 3 ? 0 : 1;
}
