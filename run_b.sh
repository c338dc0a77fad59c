source /work/venv/bin/activate
export PYTHONPATH=.
O=/tmp/r28/own.jsonl
python benchmarks/bench_reductions.py --out $O --datasets adult --attributes sex --learners boosting --methods ExponentiatedGradient --eps 0.01 0.02 0.05 --seeds 0
python benchmarks/bench_reductions.py --out $O --datasets bank --attributes age_group --learners boosting --methods ExponentiatedGradient --eps 0.01 0.02 0.05 --seeds 0
python benchmarks/bench_reductions.py --out $O --datasets german --attributes sex+age_group --learners boosting --methods ExponentiatedGradient --eps 0.02 --seeds 0
echo DONE
