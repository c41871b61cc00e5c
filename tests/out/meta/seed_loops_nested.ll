; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<uint>" = type opaque

@Table = external constant %"class.RWStructuredBuffer<uint>"

declare void @MyInnerLoopEntry()

declare void @MyLoopTerminal()

declare void @MyOuterLoopEntry()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !19, !25}
!wgc.spirv.entryPoints = !{!28, !29, !30}
!wgc.experimental.tags = !{!31, !32}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<uint>"* @Table, !"Table", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @MyInnerLoopEntry, !"MyInnerLoopEntry", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !11, i32 21, !14, i32 4, !17, i32 131072, i32 8, i32 131073, i32 1, i32 5, !18}
!10 = !{!"MyInnerLoopEntry", i32 0}
!11 = !{!12}
!12 = !{i32 1, i32 33, i32 2, !13}
!13 = !{i32 0, i32 20, i32 2, i32 4}
!14 = !{!15}
!15 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !16}
!16 = !{!"MyLoopTerminal", i32 0}
!17 = !{i32 1, i32 1, i32 1}
!18 = !{i32 0}
!19 = !{void ()* @MyLoopTerminal, !"MyLoopTerminal", null, null, !20}
!20 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !16, i32 16, i32 -1, i32 20, !11, i32 21, !21, i32 4, !17, i32 5, !18}
!21 = !{!22, !23}
!22 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !10}
!23 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !24}
!24 = !{!"MyOuterLoopEntry", i32 0}
!25 = !{void ()* @MyOuterLoopEntry, !"MyOuterLoopEntry", null, null, !26}
!26 = !{i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !24, i32 16, i32 -1, i32 20, !11, i32 21, !27, i32 4, !17, i32 131072, i32 8, i32 131073, i32 1, i32 5, !18}
!27 = !{!22}
!28 = !{void ()* @MyInnerLoopEntry, !"MyInnerLoopEntry"}
!29 = !{void ()* @MyLoopTerminal, !"MyLoopTerminal"}
!30 = !{void ()* @MyOuterLoopEntry, !"MyOuterLoopEntry"}
!31 = !{!"NodeMaxLoopIterations", i32 131072}
!32 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
