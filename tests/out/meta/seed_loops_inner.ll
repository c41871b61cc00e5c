; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<float>" = type opaque

@Values = external constant %"class.RWStructuredBuffer<float>"

declare void @MyLoopBody()

declare void @MyLoopEntry()

declare void @MyLoopTerminal()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !19, !24}
!wgc.spirv.entryPoints = !{!28, !29, !30}
!wgc.experimental.tags = !{!31, !32}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<float>"* @Values, !"Values", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @MyLoopBody, !"MyLoopBody", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !11, i32 21, !14, i32 4, !17, i32 5, !18}
!10 = !{!"MyLoopBody", i32 0}
!11 = !{!12}
!12 = !{i32 1, i32 33, i32 2, !13}
!13 = !{i32 0, i32 12, i32 2, i32 4}
!14 = !{!15}
!15 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !16}
!16 = !{!"MyLoopTerminal", i32 0}
!17 = !{i32 1, i32 1, i32 1}
!18 = !{i32 0}
!19 = !{void ()* @MyLoopEntry, !"MyLoopEntry", null, null, !20}
!20 = !{i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !21, i32 16, i32 -1, i32 20, !11, i32 21, !22, i32 4, !17, i32 131072, i32 32, i32 131073, i32 1, i32 5, !18}
!21 = !{!"MyLoopEntry", i32 0}
!22 = !{!23}
!23 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !10}
!24 = !{void ()* @MyLoopTerminal, !"MyLoopTerminal", null, null, !25}
!25 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !16, i32 16, i32 -1, i32 20, !11, i32 21, !26, i32 4, !17, i32 5, !18}
!26 = !{!27}
!27 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !21}
!28 = !{void ()* @MyLoopBody, !"MyLoopBody"}
!29 = !{void ()* @MyLoopEntry, !"MyLoopEntry"}
!30 = !{void ()* @MyLoopTerminal, !"MyLoopTerminal"}
!31 = !{!"NodeMaxLoopIterations", i32 131072}
!32 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
